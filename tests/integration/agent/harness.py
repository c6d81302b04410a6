"""The real Heat in-instance agent, run as one "server" in a temporary directory.

``ensure_agent_tools()`` builds (once, cached) a venv holding os-collect-config,
os-apply-config, os-refresh-config and their dependencies, and takes heat-agents' heat-config
element (55-heat-config, heat-config-notify, the os-apply-config templates) and its ``script``
hook from the heat-agents sdist. ``Agent`` runs them the way a booted image does::

    os-collect-config --one-time --command "os-refresh-config ..."
      -> configure.d/20-os-apply-config   renders var/run/heat-config/heat-config
      -> configure.d/55-heat-config       runs each config's hook (hooks/script)
           -> heat-config-notify          signals the outputs back

with every path pointed into the agent's work dir by options and environment variables only,
so nothing is written outside it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.integration.tool_venvs import (
    ToolUnavailable,
    cache_key,
    cached_build,
    run_tool,
    venv_with,
)

REQUIREMENTS = Path(__file__).with_name("requirements.txt")
DEFAULT_CACHE = Path.home() / ".cache" / "hearth-agent"
LAYOUT = "1"  # bump when the cache's layout changes
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Collectors an agent on this host must not run: ec2 asks 169.254.169.254 and, as root,
# probes block devices (blkid, mount) for a config drive.
UNSAFE_COLLECTORS = frozenset({"ec2"})

# os-apply-config's main, with two changes that keep it off the host's files: as root it
# would also log to /var/log/os-apply-config.log, and without --fallback-metadata it reads
# the host's /var/lib/heat-cfntools and /var/lib/cloud files beneath the collected ones.
SHIM = """#!{python}
import os
import sys

from os_apply_config import apply_config

os.geteuid = lambda: 65534
if "--fallback-metadata" not in sys.argv:
    sys.argv.append("--fallback-metadata")
sys.exit(apply_config.main(sys.argv))
"""


class AgentUnavailable(RuntimeError):
    """The agent's venv or heat-agents' files could not be made ready."""


@dataclass(frozen=True)
class AgentTools:
    """A ready agent install: the venv's bin dir and the files taken from heat-agents."""

    root: Path
    bin_dir: Path  # the venv's bin: os-collect-config, os-refresh-config, python3, ...
    shim_dir: Path  # holds the os-apply-config that goes first on PATH
    heat_config: Path  # heat-agents' heat-config element
    script_hook: Path  # heat-agents' heat-config-script/install.d/hook-script.py

    @property
    def notify(self) -> Path:
        return self.heat_config / "bin" / "heat-config-notify"

    @property
    def configure_d(self) -> Path:
        return self.heat_config / "os-refresh-config" / "configure.d"

    @property
    def templates(self) -> Path:
        return self.heat_config / "os-apply-config"


def _tools_at(root: Path) -> AgentTools:
    return AgentTools(
        root=root, bin_dir=root / "venv" / "bin", shim_dir=root / "shims",
        heat_config=root / "heat-agents" / "heat-config",
        script_hook=root / "heat-agents" / "heat-config-script" / "install.d" / "hook-script.py",
    )


def _build(target: Path) -> None:
    python = venv_with(target, REQUIREMENTS)
    pip: list[str | Path] = [python, "-m", "pip", "--disable-pip-version-check"]
    pinned = re.search(r"^heat-agents==(\S+)$", REQUIREMENTS.read_text(), re.MULTILINE)
    if not pinned:
        raise AgentUnavailable(f"{REQUIREMENTS} pins no heat-agents")
    version = pinned.group(1)
    download = target / "download"
    run_tool([*pip, "download", "-q", "--no-deps", "--no-binary", ":all:",
               "-d", download, f"heat-agents=={version}"], "pip download heat-agents (sdist)")
    sdists = list(download.glob("heat*agents-*.tar.gz"))
    if len(sdists) != 1:
        raise AgentUnavailable(f"pip download heat-agents left {sdists} in {download}")
    wanted = ("heat-config/", "heat-config-script/")
    with tarfile.open(sdists[0]) as tar:
        members = []
        for member in tar.getmembers():
            _, _, inner = member.name.partition("/")
            if inner.startswith(wanted):
                member.name = inner
                members.append(member)
        tar.extractall(target / "heat-agents", members=members, filter="data")
    shutil.rmtree(download)
    tools = _tools_at(target)
    for needed in (tools.notify, tools.script_hook, tools.configure_d / "55-heat-config",
                   tools.configure_d / "20-os-apply-config",
                   tools.templates / "etc" / "os-collect-config.conf",
                   tools.templates / "var" / "run" / "heat-config" / "heat-config"):
        if not needed.is_file():
            raise AgentUnavailable(f"heat-agents {version} has no {needed.relative_to(target)}")
    tools.notify.chmod(0o755)
    tools.shim_dir.mkdir()
    shim = tools.shim_dir / "os-apply-config"
    shim.write_text(SHIM.format(python=tools.bin_dir / "python"))
    shim.chmod(0o755)


def ensure_agent_tools(cache_root: Path = DEFAULT_CACHE) -> AgentTools:
    """The agent install for requirements.txt's pins, built under ``cache_root`` if missing."""
    key = cache_key(REQUIREMENTS, LAYOUT)
    try:
        return _tools_at(cached_build(cache_root, key, _build))
    except ToolUnavailable as exc:
        raise AgentUnavailable(str(exc)) from exc


@dataclass
class AgentRun:
    """What one ``os-collect-config --one-time`` run did."""

    returncode: int
    stdout: str
    stderr: str  # the logs: os-collect-config's warnings, os-refresh-config, hooks, notify
    deployed_dir: Path

    @property
    def log(self) -> str:
        return self.stdout + self.stderr

    @property
    def command_ran(self) -> bool:
        """Whether os-collect-config ran os-refresh-config (it does only on changed metadata)."""
        return "Starting phase configure" in self.stderr

    def deployed_ids(self) -> list[str]:
        """The ids of the configs 55-heat-config has deployed (in this run or before)."""
        if not self.deployed_dir.is_dir():
            return []
        return sorted(p.name[:-5] for p in self.deployed_dir.glob("*.json")
                      if not p.name.endswith(".notify.json"))

    def notify_data(self, config_id: str) -> Any:
        """The signal data the hook produced for ``config_id`` (what heat-config-notify sent)."""
        return json.loads((self.deployed_dir / f"{config_id}.notify.json").read_text())

    def check(self) -> AgentRun:
        if self.returncode != 0:
            raise AssertionError(f"the agent exited {self.returncode}:\n{self.log}")
        return self


class Agent:
    """One server's agent, all of its state in ``workdir``."""

    def __init__(self, tools: AgentTools, workdir: Path) -> None:
        self.tools = tools
        self.workdir = workdir.resolve()
        w = self.workdir
        self.conf_path = w / "etc" / "os-collect-config.conf"
        self.conf_dir = w / "etc" / "os-collect-config.conf.d"  # empty: no host's conf dirs
        self.cache_dir = w / "var" / "lib" / "os-collect-config"
        self.local_data_dir = w / "var" / "lib" / "os-collect-config" / "local-data"
        self.heat_config_path = w / "var" / "run" / "heat-config" / "heat-config"
        self.deployed_dir = w / "var" / "lib" / "heat-config" / "deployed"
        self.hooks_dir = w / "hooks"
        self.orc_base = w / "os-refresh-config"
        self.oac_templates = w / "oac-templates"
        self._setup()

    def _setup(self) -> None:
        w, t = self.workdir, self.tools
        for d in (w / "home", w / "tmp", self.conf_dir, self.cache_dir, self.local_data_dir,
                  self.hooks_dir, self.orc_base / "configure.d"):
            d.mkdir(parents=True, exist_ok=True, mode=0o700)
        _install(t.script_hook, self.hooks_dir / "script")
        for name in ("20-os-apply-config", "55-heat-config"):
            _install(t.configure_d / name, self.orc_base / "configure.d" / name)
        # 20-os-apply-config runs os-apply-config with no arguments, so its output root is "/":
        # a template tree that repeats the work dir's absolute path lands the file back in it.
        template = t.templates / "var" / "run" / "heat-config" / "heat-config"
        mirrored = self.oac_templates / self.heat_config_path.relative_to("/")
        mirrored.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template, mirrored)

    def environment(self) -> dict[str, str]:
        """The agent's whole environment: nothing is taken from this process's."""
        w = self.workdir
        return {
            "PATH": f"{self.tools.shim_dir}:{self.tools.bin_dir}:{SYSTEM_PATH}",
            "HOME": str(w / "home"),
            "TMPDIR": str(w / "tmp"),
            # Python 3.11 reads a C.UTF-8 locale as en_US.UTF-8, which os-collect-config's local
            # collector then fails to set back where that locale is not installed.
            "LC_ALL": "C",
            "PYTHONCOERCECLOCALE": "0",
            "PYTHONUTF8": "1",
            "PYTHONDONTWRITEBYTECODE": "1",  # the cached venv is shared: leave it as built
            "OS_REFRESH_CONFIG_BASE_DIR": str(self.orc_base),
            "OS_CONFIG_APPLIER_TEMPLATES": str(self.oac_templates),
            "OS_CONFIG_FILES_PATH": str(self.cache_dir / "os_config_files.json"),
            "HEAT_CONFIG_HOOKS": str(self.hooks_dir),
            "HEAT_SHELL_CONFIG": str(self.heat_config_path),
            "HEAT_CONFIG_DEPLOYED": str(self.deployed_dir),
            "HEAT_CONFIG_DEPLOYED_OLD": str(w / "var" / "run" / "heat-config" / "deployed"),
            "HEAT_CONFIG_NOTIFY": str(self.tools.notify),
            "HEAT_SCRIPT_WORKING": str(w / "var" / "lib" / "heat-config" / "heat-config-script"),
            "HEAT_SCRIPT_OUTPUTS": str(w / "var" / "run" / "heat-config" / "heat-config-script"),
        }

    def configure(self, occ: Mapping[str, Any]) -> Path:
        """Writes os-collect-config.conf from the settings Heat puts under a server's
        ``os-collect-config`` metadata key, through heat-agents' own template."""
        occ = dict(occ)
        collectors = [c for c in occ.get("collectors") or [] if c not in UNSAFE_COLLECTORS]
        if not collectors:
            raise ValueError(f"no collector this harness can run in {occ.get('collectors')!r}")
        occ["collectors"] = collectors
        meta = self.workdir / "tmp" / "configure-metadata.json"
        meta.write_text(json.dumps({"os-collect-config": occ}))
        templates = self.workdir / "tmp" / "conf-templates"
        (templates / "etc").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.tools.templates / "etc" / "os-collect-config.conf",
                        templates / "etc" / "os-collect-config.conf")
        done = subprocess.run(
            [str(self.tools.shim_dir / "os-apply-config"), "-t", str(templates),
             "-o", str(self.workdir), "-m", str(meta)],
            capture_output=True, text=True, env=self.environment(), timeout=60)
        if done.returncode != 0 or not self.conf_path.is_file():
            raise RuntimeError(f"os-apply-config failed:\n{done.stdout}{done.stderr}")
        return self.conf_path

    def command(self, *, force: bool = False) -> list[str]:
        """The os-collect-config command line ``run_once`` runs."""
        w = self.workdir
        refresh = shlex.join(["os-refresh-config", "--log-level", "DEBUG",
                              "--lockfile", str(w / "os-refresh-config.lock")])
        args = [
            str(self.tools.bin_dir / "os-collect-config"), "--one-time",
            "--config-file", str(self.conf_path), "--config-dir", str(self.conf_dir),
            "--command", refresh,
            "--cachedir", str(self.cache_dir),
            "--backup-cachedir", str(w / "var" / "run" / "os-collect-config"),
            "--local-path", str(self.local_data_dir),
            "--heat_local-path", str(w / "var" / "lib" / "heat-cfntools" / "cfn-init-data"),
            "--cfn-heat-metadata-hint", str(w / "var" / "lib" / "heat-cfntools" / "hint"),
        ]
        return args + (["--force"] if force else [])

    def run_once(self, timeout: float = 120, *, force: bool = False) -> AgentRun:
        """One collection; when the metadata changed (or ``force``), the whole chain."""
        if not self.conf_path.is_file():
            raise RuntimeError("configure() the agent first")
        proc = subprocess.Popen(self.command(force=force), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=self.workdir,
                                env=self.environment(), start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the hooks and scripts it started too
            out, err = proc.communicate()
            raise AssertionError(f"the agent did not finish in {timeout}s:\n{out}{err}") from None
        return AgentRun(proc.returncode, out, err, self.deployed_dir)


def _install(source: Path, dest: Path) -> None:
    shutil.copyfile(source, dest)
    dest.chmod(0o755)
