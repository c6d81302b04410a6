"""Tools that tests run outside the project's venv (the Heat agent, heat-cfntools): each in a
venv of its own, built once per requirements and kept under a cache directory.

A build goes to a fresh ``<key>-<token>`` dir and is published by atomically replacing the
symlink ``<key>`` (a venv cannot be renamed: its scripts name their own path), under a lock so
that parallel test workers build it once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

BUILD_TIMEOUT = 900.0


class ToolUnavailable(RuntimeError):
    """The tool could not be installed here (no index, no network, a failed build)."""


def cache_key(requirements: Path, layout: str = "") -> str:
    digest = hashlib.sha256(requirements.read_bytes())
    digest.update(f"{layout}|{sys.version}|{sys.base_prefix}".encode())
    return digest.hexdigest()[:16]


def run_tool(args: Sequence[str | Path], what: str) -> None:
    try:
        done = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT, env={**os.environ, "PIP_NO_INPUT": "1"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolUnavailable(f"{what} failed: {exc}") from exc
    if done.returncode != 0:
        lines = [ln for ln in (done.stdout + done.stderr).splitlines()
                 if "is ignored: it is neither a file nor a directory" not in ln]
        tail = "\n".join(lines[-30:])
        raise ToolUnavailable(f"{what} failed (exit {done.returncode}):\n{tail}")


def venv_with(target: Path, requirements: Path) -> Path:
    """``target/venv`` with ``requirements`` installed; its python."""
    venv = target / "venv"
    run_tool([sys.executable, "-m", "venv", venv], "python -m venv")
    python = venv / "bin" / "python"
    run_tool([python, "-m", "pip", "--disable-pip-version-check", "install", "-q", "-r",
              requirements], f"pip install -r {requirements.name}")
    return python


def cached_build(cache_root: Path, key: str, build: Callable[[Path], None]) -> Path:
    """The directory ``build`` filled for ``key``, built now unless a complete one exists."""
    cache_root.mkdir(parents=True, exist_ok=True)
    link = cache_root / key
    with open(cache_root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (link / "complete").is_file():
            return link.resolve()
        for stale in cache_root.glob(f"{key}-*"):  # a build that died half way
            shutil.rmtree(stale, ignore_errors=True)
        target = cache_root / f"{key}-{secrets.token_hex(4)}"
        target.mkdir()
        try:
            build(target)
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise
        (target / "complete").write_text(key + "\n")
        staging = cache_root / f".{key}.link-{secrets.token_hex(4)}"
        staging.symlink_to(target.name)
        os.replace(staging, link)
        return target
