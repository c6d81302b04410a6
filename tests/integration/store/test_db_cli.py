"""``hearth db ...`` and ``hearth stack reset-state`` on a temporary SQLite database."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from hearth.cli.main import main
from hearth.store import migrate
from hearth.store.db import Database
from hearth.store.models import Stack
from hearth.store.types import utcnow
from tests.integration.store.conftest import add_stack


@pytest.fixture
def config(tmp_path: Path) -> tuple[str, str]:
    """A config file naming a fresh SQLite database; returns (config path, database URL)."""
    url = f"sqlite:///{tmp_path / 'data' / 'hearth.sqlite'}"
    path = tmp_path / "hearth.conf"
    path.write_text(f"[database]\nconnection = {url}\n")
    return str(path), url


def _run(
    capsys: pytest.CaptureFixture[str], config: tuple[str, str], *args: str
) -> tuple[int, str, str]:
    code = main(["--config-file", config[0], *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _stacks(url: str) -> dict[str, str | None]:
    db = Database(url)
    try:
        with db.session(readonly=True) as session:
            return dict(session.execute(select(Stack.name, Stack.status)).all())
    finally:
        db.dispose()


def _with_db(url: str) -> Database:
    migrate.upgrade(url)
    return Database(url)


def test_upgrade_and_version(capsys: pytest.CaptureFixture[str], config: tuple[str, str]) -> None:
    head = migrate.head_revision()
    assert _run(capsys, config, "db", "version") == (
        0, f"none (head is {head}: run 'hearth db upgrade')\n", ""
    )
    code, out, _ = _run(capsys, config, "db", "upgrade")
    assert (code, out) == (0, f"Database schema is at revision {head}\n")
    assert _run(capsys, config, "db", "version") == (0, f"{head} (head)\n", "")
    # Upgrading again is harmless.
    assert _run(capsys, config, "db", "upgrade", "head")[0] == 0


def test_upgrade_to_an_unknown_revision(
    capsys: pytest.CaptureFixture[str], config: tuple[str, str]
) -> None:
    code, _, err = _run(capsys, config, "db", "upgrade", "9999")
    assert code == 1
    assert err.startswith("ERROR: ") and "9999" in err and "Traceback" not in err


def test_purge_deleted(capsys: pytest.CaptureFixture[str], config: tuple[str, str]) -> None:
    db = _with_db(config[1])
    add_stack(db, name="old", deleted_at=utcnow() - timedelta(hours=3))
    add_stack(db, name="older-other", deleted_at=utcnow() - timedelta(hours=5), tenant="other")
    add_stack(db, name="recent", deleted_at=utcnow() - timedelta(minutes=5))
    db.dispose()

    assert _run(capsys, config, "db", "purge-deleted", "1")[:2] == (
        0, "Purged 0 deleted stack(s)\n"
    )
    code, out, _ = _run(
        capsys, config, "db", "purge-deleted", "2", "--granularity", "hours",
        "--project-id", "project-a", "--batch-size", "1",
    )
    assert (code, out) == (0, "Purged 1 deleted stack(s)\n")
    assert set(_stacks(config[1])) == {"older-other", "recent"}
    assert _run(capsys, config, "db", "purge-deleted", "60", "--granularity", "seconds")[1] == (
        "Purged 2 deleted stack(s)\n"
    )


@pytest.mark.parametrize(
    "args",
    [["-1"], ["x"], ["1", "--granularity", "weeks"], ["1", "--batch-size", "0"]],
)
def test_purge_deleted_rejects_bad_arguments(
    capsys: pytest.CaptureFixture[str], config: tuple[str, str], args: list[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--config-file", config[0], "db", "purge-deleted", *args])
    assert exit_info.value.code == 2
    assert "purge-deleted: error:" in capsys.readouterr().err


def test_commands_need_a_current_schema(
    capsys: pytest.CaptureFixture[str], config: tuple[str, str]
) -> None:
    code, _, err = _run(capsys, config, "db", "purge-deleted", "1")
    assert code == 1
    assert err == (
        f"ERROR: The database schema is at revision none, not {migrate.head_revision()}: "
        "run 'hearth db upgrade' first\n"
    )


def test_reset_state_with_yes(capsys: pytest.CaptureFixture[str], config: tuple[str, str]) -> None:
    db = _with_db(config[1])
    stack_id = add_stack(db, name="stuck", action="CREATE", status="IN_PROGRESS")
    db.dispose()
    code, out, _ = _run(capsys, config, "stack", "reset-state", stack_id, "--yes")
    assert (code, out) == (0, f"Stack {stack_id} is now FAILED.\n")
    assert _stacks(config[1]) == {"stuck": "FAILED"}
    # Again: there is nothing left to reset.
    code, _, err = _run(capsys, config, "stack", "reset-state", stack_id, "--yes")
    assert (code, err) == (1, f"Stack {stack_id} is not IN_PROGRESS; nothing was changed.\n")


@pytest.mark.parametrize(("answer", "status"), [("y\n", "FAILED"), ("n\n", "IN_PROGRESS"),
                                                ("", "IN_PROGRESS")])
def test_reset_state_asks_first(
    capsys: pytest.CaptureFixture[str],
    config: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
    status: str,
) -> None:
    db = _with_db(config[1])
    stack_id = add_stack(db, name="stuck", action="CREATE", status="IN_PROGRESS")
    db.dispose()
    monkeypatch.setattr("sys.stdin", io.StringIO(answer))
    code, out, err = _run(capsys, config, "stack", "reset-state", stack_id)
    assert f"Mark stack {stack_id}" in out
    assert code == (0 if status == "FAILED" else 1)
    assert ("Aborted." in err) == (status != "FAILED")
    assert _stacks(config[1]) == {"stuck": status}


def test_reset_state_of_an_unknown_stack(
    capsys: pytest.CaptureFixture[str], config: tuple[str, str]
) -> None:
    migrate.upgrade(config[1])
    assert _run(capsys, config, "stack", "reset-state", "nope", "--yes") == (
        1, "", "ERROR: The Stack (nope) could not be found.\n"
    )


def test_unreachable_database_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "hearth.conf"
    path.write_text("[database]\nconnection = postgresql://nobody@127.0.0.1:1/hearth\n")
    code = main(["--config-file", str(path), "db", "version"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("ERROR: database error: ") and err.count("\n") == 1
    assert "127.0.0.1" in err


def test_missing_config_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["--config-file", str(tmp_path / "absent.conf"), "db", "version"])
    assert code == 1
    assert "Config file not found" in capsys.readouterr().err
