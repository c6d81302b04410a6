"""``python -m bench.isolation``: another client's latency while worst-case templates run.

A `hearth serve` subprocess gets, from several threads at once, stack creates whose templates
burn their whole CPU budget (yaql spinning in every resource's properties); meanwhile one client
times ``GET /stacks`` back to back. The same run is made with the template sandbox
(``template_workers`` > 0, the default) and without it (``template_workers = 0``: the template
work runs in the API's own threads), and the latencies are printed side by side.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import requests

from bench import machine

SPIN = "range(200).select(range(200).select(range(200).sum()).sum()).sum()"
BOMB = {
    "heat_template_version": "2021-04-16",
    "resources": {f"spin{i}": {"type": "OS::Heat::Value",
                               "properties": {"value": {"yaql": {"expression": SPIN}}}}
                  for i in range(60)},
}
PROJECT = "bench"


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def _server(workers: int, cpu_seconds: int) -> Iterator[str]:
    port = _free_port()
    with tempfile.TemporaryDirectory() as data_dir:
        conf = Path(data_dir) / "hearth.conf"
        conf.write_text(
            f"[DEFAULT]\ndata_dir = {data_dir}\ntemplate_workers = {workers}\n"
            f"template_cpu_seconds = {cpu_seconds}\n"
            f"[api]\nbind_host = 127.0.0.1\nbind_port = {port}\n[cfn_api]\nenabled = false\n")
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "hearth"), "serve", "--config-file", str(conf)],
            cwd=machine.REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}/v1/{PROJECT}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    requests.get(f"{url}/stacks", timeout=2).raise_for_status()
                    break
                except requests.RequestException:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise SystemExit("hearth serve did not start") from None
                    time.sleep(0.2)
            # The first template request starts the workers; not part of the figure.
            requests.post(f"{url}/validate", timeout=60,
                          json={"template": {"heat_template_version": "2021-04-16"}})
            yield url
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def measure(workers: int, bombers: int, seconds: float, cpu_seconds: int) -> dict[str, float]:
    """GET /stacks latencies (ms) while ``bombers`` threads send budget-burning templates."""
    with _server(workers, cpu_seconds) as url:
        stop = threading.Event()
        answers: list[int] = []

        names = itertools.count()

        def bomb() -> None:
            while not stop.is_set():
                resp = requests.post(f"{url}/stacks", timeout=600, json={
                    "stack_name": f"bomb{next(names)}", "template": BOMB})
                answers.append(resp.status_code)

        threads = [threading.Thread(target=bomb, daemon=True) for _ in range(bombers)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)  # the bombs are running
        latencies: list[float] = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            started = time.perf_counter()
            requests.get(f"{url}/stacks", timeout=60).raise_for_status()
            latencies.append((time.perf_counter() - started) * 1000)
        stop.set()
        for thread in threads:
            thread.join(timeout=300)
    latencies.sort()
    return {
        "requests": len(latencies),
        "p50_ms": statistics.median(latencies),
        "p99_ms": latencies[max(0, int(len(latencies) * 0.99) - 1)],
        "max_ms": latencies[-1],
        "bombs_answered": len(answers),
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.isolation", description=__doc__)
    p.add_argument("--bombers", type=int, default=4, help="threads sending bombs")
    p.add_argument("--seconds", type=float, default=20.0, help="how long GET /stacks is timed")
    p.add_argument("--cpu-seconds", type=int, default=5, help="template_cpu_seconds")
    args = p.parse_args(argv)
    print(f"{args.bombers} clients sending CPU-budget bombs to POST /stacks; one client "
          f"timing GET /stacks for {args.seconds:g} s "
          f"({machine.cpu_model()}, {os.cpu_count()} cores)")
    for workers, label in ((2, "sandbox (template_workers = 2)"),
                           (0, "no sandbox (template_workers = 0)")):
        r = measure(workers, args.bombers, args.seconds, args.cpu_seconds)
        print(f"{label}: GET /stacks p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
              f"max {r['max_ms']:.1f} ms over {r['requests']:.0f} requests; "
              f"{r['bombs_answered']:.0f} bombs answered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
