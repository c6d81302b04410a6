"""`hearth serve`'s settings and `hearth config sample`."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from hearth.cli.main import build_parser, main
from hearth.cli.serve import parse_bind, server_config


def _serve_args(argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(["serve", *argv])


def test_bind_and_data_dir_from_the_command_line(tmp_path: Path) -> None:
    conf = server_config(_serve_args(["--bind", "0.0.0.0:9100", "--data-dir", str(tmp_path)]))
    assert (conf.api.bind_host, conf.api.bind_port) == ("0.0.0.0", 9100)
    assert conf.data_dir == str(tmp_path)
    assert conf.api.auth_strategy == "noauth"


def test_defaults_are_the_embedded_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HEARTH_BIND", "HEARTH_DATA_DIR", "HEARTH_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    conf = server_config(_serve_args([]))
    assert (conf.api.bind_host, conf.api.bind_port) == ("127.0.0.1", 8004)
    assert conf.database.connection is None


def test_environment_variables_and_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "hearth.conf"
    config.write_text("[api]\nauth_strategy = keystone\n[DEFAULT]\nmax_stacks_per_tenant = 7\n")
    monkeypatch.setenv("HEARTH_BIND", "127.0.0.2:8111")
    monkeypatch.setenv("HEARTH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HEARTH_CONFIG", str(config))
    conf = server_config(_serve_args([]))
    assert (conf.api.bind_host, conf.api.bind_port) == ("127.0.0.2", 8111)
    assert conf.data_dir == str(tmp_path / "data")
    assert conf.api.auth_strategy == "keystone"
    assert conf.max_stacks_per_tenant == 7


@pytest.mark.parametrize("text", ["8004", "host:", ":80", "host:port"])
def test_bad_bind_values_are_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="HOST:PORT"):
        parse_bind(text)


def test_config_sample_lists_every_option_group(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "sample"]) == 0
    sample = capsys.readouterr().out
    for section in ("[DEFAULT]", "[api]", "[database]", "[keystone_authtoken]", "[oslo_policy]"):
        assert section in sample
    assert "#auth_strategy = noauth" in sample
    assert "#bind_port = 8004" in sample
    assert "#max_json_body_size = 1048576" in sample


def test_config_sample_lists_the_operations_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "sample"]) == 0
    sample = capsys.readouterr().out
    for line in ("[healthcheck]", "#backends = disable_by_file",
                 "#disable_by_file_path = <data_dir>/healthcheck_disable",
                 "[metrics]", "#enabled = true", "#engine_bind =", "#use_json = false"):
        assert line in sample.splitlines()


def test_config_file_has_heats_spelling_before_or_after_serve(tmp_path: Path) -> None:
    config = tmp_path / "hearth.conf"
    config.write_text("[DEFAULT]\nmax_stacks_per_tenant = 9\n")
    for argv in (["serve", "--config-file", str(config)], ["--config-file", str(config), "serve"],
                 ["serve", "--config", str(config)]):
        conf = server_config(build_parser().parse_args(argv))
        assert conf.max_stacks_per_tenant == 9, argv


def test_worker_threads_follow_the_database_unless_set(tmp_path: Path) -> None:
    from hearth.common.config import load_config
    from hearth.engine.core import EngineSettings

    def threads(url: str, *extra: tuple[str, str | None, object]) -> int:
        conf = load_config(overrides=[("connection", "database", url), *extra])
        return EngineSettings.from_config(conf).worker_threads

    sqlite = f"sqlite:///{tmp_path / 'hearth.sqlite'}"
    server = "postgresql+psycopg://hearth@127.0.0.1/hearth"
    # SQLite: many threads, so that child stacks' stores wait together for one commit.
    assert threads(sqlite) == 32
    assert threads(server) == 8
    assert threads("mysql+pymysql://root@127.0.0.1/hearth") == 8
    for url in (sqlite, server):
        assert threads(url, ("engine_worker_threads", None, 5)) == 5
