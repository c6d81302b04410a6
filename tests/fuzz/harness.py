"""The fuzz harness: sends requests through the real WSGI app and checks every answer.

Every answer must be under 500, carry no traceback, come within the time budget and be of
bounded size; an error must be in Heat's body shape; nothing may be logged as an unexpected
error meanwhile (an engine thread's crash shows only there); the process's RSS stays under a
stated bound. Problems are kept with the request that caused them, so a long run can report
every distinct one instead of stopping at the first.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from falcon import testing

TRACEBACK_MARKERS = ("Traceback (most recent call last)", 'File "/')
# A Python error's own name in an answer (an error type, a stack or resource status reason)
# means an exception escaped the code meant to turn bad input into a clear message.
INTERNAL_ERROR = re.compile(
    r"\b(TypeError|KeyError|AttributeError|IndexError|RecursionError|MemoryError"
    r"|ZeroDivisionError|UnboundLocalError|NameError|AssertionError|OverflowError"
    r"|UnicodeEncodeError|UnicodeDecodeError|JSONDecodeError)\b")
ERROR_KEYS = {"code", "title", "explanation", "error"}
SAMPLE_BYTES = 4000


def _env_number(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


class RawJSON:
    """JSON text that goes into a request body as it is: nesting too deep for Python's
    encoder (and for Hypothesis to print), named by a short label."""

    def __init__(self, text: str, label: str) -> None:
        self.text = text
        self.label = label

    def __repr__(self) -> str:
        return f"RawJSON({self.label})"


def encode(body: Any) -> bytes:
    """``body`` as JSON, each RawJSON in it spliced in as its text."""
    raws: dict[str, str] = {}

    def placeholder(value: Any) -> str:
        if not isinstance(value, RawJSON):
            raise TypeError(f"{type(value).__name__} is not JSON")
        token = f"raw-json-{len(raws)}"
        raws[json.dumps(token)] = value.text
        return token

    # NaN and Infinity go as JSON's common extension, as some clients send them
    text = json.dumps(body, default=placeholder)
    for token, raw in raws.items():
        text = text.replace(token, raw, 1)
    return text.encode()


@dataclass(frozen=True)
class Limits:
    """What every answer and the whole run must stay within (each settable by env var)."""

    answer_seconds: float = _env_number("HEARTH_FUZZ_ANSWER_SECONDS", 5.0)
    answer_bytes: int = int(_env_number("HEARTH_FUZZ_ANSWER_BYTES", 32 * 1024 * 1024))
    rss_bytes: int = int(_env_number("HEARTH_FUZZ_RSS_MB", 1536)) * 1024 * 1024


@dataclass
class Problem:
    kind: str
    request: str
    detail: str

    def signature(self) -> str:
        """What makes two problems the same bug: the kind, the route shape, the first line."""
        return f"{self.kind} {self.request.split('?')[0]} {self.detail.splitlines()[0][:160]}"


class ErrorLog(logging.Handler):
    """Keeps every ERROR (or worse) logged anywhere: unexpected exceptions land here."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []
        self._lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._lock:
            self.records.append(record)

    def take(self) -> list[logging.LogRecord]:
        with self._lock:
            taken, self.records = self.records, []
        return taken


@dataclass
class Stats:
    cases: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    requests: int = 0
    slowest: float = 0.0
    slowest_request: str = ""
    largest: int = 0
    max_rss: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "cases": dict(self.cases), "total_cases": sum(self.cases.values()),
            "requests": self.requests, "statuses": dict(sorted(self.statuses.items())),
            "slowest_seconds": round(self.slowest, 3), "slowest_request": self.slowest_request,
            "largest_answer_bytes": self.largest, "max_rss_mb": self.max_rss // (1024 * 1024),
        }


class Answer:
    """One response: its status, text and the JSON it holds (None when it holds none)."""

    def __init__(self, result: testing.Result) -> None:
        self.status = result.status_code
        self.text = result.text
        self.headers = result.headers
        try:
            self.json: Any = json.loads(self.text) if self.text else None
        except ValueError:
            self.json = None


class Harness:
    def __init__(self, app: Any, limits: Limits | None = None, *, keep_going: bool = False,
                 report_to: str | None = None) -> None:
        self.keep_going = keep_going
        # A long run's report is rewritten as it goes, to be watched.
        self.report_to = report_to
        self.client = testing.TestClient(app)
        self.limits = limits or Limits()
        self.stats = Stats()
        self.problems: list[Problem] = []
        self.errors = ErrorLog()
        self.process = psutil.Process()
        logging.getLogger().addHandler(self.errors)

    def close(self) -> None:
        logging.getLogger().removeHandler(self.errors)

    def request(self, method: str, path: str, *, body: Any = None, raw: bytes | None = None,
                query: str | None = None, headers: dict[str, str] | None = None) -> Answer:
        """One request through the app; the answer is checked before it is returned."""
        sent_headers = {"Content-Type": "application/json", **(headers or {})}
        content: bytes | None = raw
        if isinstance(body, bytes):
            content = body
        elif body is not None:
            content = encode(body)
        started = time.monotonic()
        result = self.client.simulate_request(
            method, path, query_string=query, body=content, headers=sent_headers)
        elapsed = time.monotonic() - started
        answer = Answer(result)
        where = f"{method} {path}" + (f"?{query}" if query else "")
        self._check(where, answer, elapsed, content)
        return answer

    def _check(self, where: str, answer: Answer, elapsed: float, sent: bytes | None) -> None:
        stats = self.stats
        stats.requests += 1
        stats.statuses[str(answer.status)] += 1
        if elapsed > stats.slowest:
            stats.slowest, stats.slowest_request = elapsed, where
        stats.largest = max(stats.largest, len(answer.text))
        # enough of the request to replay it from the report
        sample = (sent or b"")[:SAMPLE_BYTES].decode(errors="replace")
        if answer.status >= 500:
            self._problem("5xx", where, f"{answer.status} {answer.text[:300]}\nsent: {sample}")
        if any(marker in answer.text for marker in TRACEBACK_MARKERS):
            self._problem("traceback", where, answer.text[:500])
        internal = INTERNAL_ERROR.search(answer.text)
        # A name the request itself sent (a parameter "type: AttributeError") is only echoed.
        if internal and internal.group(1).encode() not in (sent or b""):
            start = max(0, internal.start() - 150)
            self._problem("internal-error", where,
                          f"{internal.group(1)}: {answer.text[start:start + 400]}\nsent: {sample}")
        if elapsed > self.limits.answer_seconds:
            self._problem("slow", where, f"{elapsed:.2f}s\nsent: {sample}")
        if len(answer.text) > self.limits.answer_bytes:
            self._problem("large", where, f"{len(answer.text)} characters\nsent: {sample}")
        if answer.status >= 400 and where.split()[0] != "HEAD":
            if not (isinstance(answer.json, dict) and set(answer.json) == ERROR_KEYS):
                self._problem("error-shape", where, f"{answer.status} {answer.text[:300]}")
        self.check_logs(where, sample)

    def check_logs(self, where: str, sample: str = "") -> None:
        """Anything logged at ERROR since the last check is a crash somewhere."""
        for record in self.errors.take():
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                exc = record.exc_info[1]
                # where it was raised: the last frames are what a fix needs
                frames = traceback.extract_tb(exc.__traceback__)[-3:]
                text += f": {type(exc).__name__}: {exc} at " + " < ".join(
                    f"{Path(f.filename).name}:{f.lineno}" for f in reversed(frames))
            self._problem("logged-error", where, f"{record.name}: {text}\nsent: {sample}")

    @contextmanager
    def case(self, kind: str) -> Iterator[None]:
        """One generated case; its problems fail it at once unless the run keeps going."""
        first = len(self.problems)
        yield
        self.check_logs(kind)
        self.stats.cases[kind] += 1
        rss = self.process.memory_info().rss
        self.stats.max_rss = max(self.stats.max_rss, rss)
        if rss > self.limits.rss_bytes:
            self._problem("rss", kind, f"{rss // (1024 * 1024)} MB")
        if self.report_to and sum(self.stats.cases.values()) % 500 == 0:
            self.write_report()
        found = self.problems[first:]
        if found and not self.keep_going:
            raise AssertionError("\n\n".join(
                f"{p.kind} at {p.request}: {p.detail}" for p in found))

    def _problem(self, kind: str, where: str, detail: str) -> None:
        self.problems.append(Problem(kind, where, detail))

    def distinct_problems(self) -> dict[str, Problem]:
        seen: dict[str, Problem] = {}
        for problem in self.problems:
            seen.setdefault(problem.signature(), problem)
        return seen

    def write_report(self) -> None:
        if self.report_to:
            with open(self.report_to, "w") as out:
                json.dump(self.report(), out, indent=2)

    def report(self) -> dict[str, Any]:
        return {
            **self.stats.as_dict(),
            "limits": {"answer_seconds": self.limits.answer_seconds,
                       "answer_bytes": self.limits.answer_bytes,
                       "rss_mb": self.limits.rss_bytes // (1024 * 1024)},
            "problems": len(self.problems),
            "distinct_problems": [
                {"kind": p.kind, "request": p.request, "detail": p.detail}
                for p in self.distinct_problems().values()
            ],
        }
