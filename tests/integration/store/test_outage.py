"""Which database errors are an outage (the server cannot be reached: the work is done again
once it answers) and which are the statement's own (they fail the work as before)."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pymysql
import pytest
import sqlalchemy as sa

from hearth.store.outage import is_database_outage
from tests.integration.conftest import DatabaseFactory
from tests.integration.serve_process import free_port


@pytest.mark.parametrize("url", [
    "postgresql+psycopg://postgres@127.0.0.1:{port}/hearth?connect_timeout=3",
    "mysql+pymysql://root@127.0.0.1:{port}/hearth?connect_timeout=3",
])
def test_a_refused_connection_is_an_outage(url: str) -> None:
    # A port nothing listens on: the server is down.
    engine = sa.create_engine(url.format(port=free_port()))
    try:
        with pytest.raises(sa.exc.DBAPIError) as caught, engine.connect():
            pass
    finally:
        engine.dispose()
    assert is_database_outage(caught.value)
    # Also when it is what made another error.
    try:
        raise RuntimeError("the step failed") from caught.value
    except RuntimeError as wrapped:
        assert is_database_outage(wrapped)


def test_a_dropped_connection_is_an_outage(database_factory: DatabaseFactory) -> None:
    url = database_factory.new("postgresql")
    engine = sa.create_engine(url)
    try:
        with engine.connect() as victim, engine.connect() as killer:
            pid = victim.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
            killer.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            with pytest.raises(sa.exc.DBAPIError) as caught:
                victim.execute(sa.text("SELECT 1"))
    finally:
        engine.dispose()
    assert is_database_outage(caught.value)


def test_errors_of_the_statement_are_not(tmp_path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("CREATE TABLE t (id INTEGER PRIMARY KEY)"))
            conn.execute(sa.text("INSERT INTO t VALUES (1)"))
        for bad in ("INSERT INTO t VALUES (1)", "SELECT nope FROM t", "SELEC 1"):
            with pytest.raises(sa.exc.DBAPIError) as caught, engine.begin() as conn:
                conn.execute(sa.text(bad))
            assert not is_database_outage(caught.value), bad
    finally:
        engine.dispose()
    assert not is_database_outage(RuntimeError("not a database error"))
    # An error raised while handling an outage, with the outage hidden on purpose, is not.
    try:
        try:
            raise sa.exc.DisconnectionError("gone")
        except sa.exc.DisconnectionError:
            raise KeyError("x") from None
    except KeyError as hidden:
        assert not is_database_outage(hidden)


@pytest.mark.parametrize(("orig", "outage"), [
    # What a commit may raise: the server's answer, not its absence.
    (psycopg.errors.SerializationFailure("could not serialize access"), False),
    (psycopg.errors.DeadlockDetected("deadlock detected"), False),
    (pymysql.err.OperationalError(1213, "Deadlock found when trying to get lock"), False),
    (pymysql.err.OperationalError(1205, "Lock wait timeout exceeded"), False),
    # The server going or gone.
    (psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
     True),
    (psycopg.errors.CannotConnectNow("the database system is starting up"), True),
    (pymysql.err.OperationalError(2013, "Lost connection to MySQL server during query"), True),
])
def test_an_error_without_a_statement_is_an_outage_only_when_the_server_is_gone(
        orig: Exception, outage: bool) -> None:
    error = sa.exc.OperationalError(None, None, orig)
    assert is_database_outage(error) is outage
