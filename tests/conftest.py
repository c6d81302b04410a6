"""Checks on the test run itself."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.shared_broker import broker_in_use


def pytest_collection_finish(session: pytest.Session) -> None:
    """Fail the run when ``--dist loadgroup`` would not keep an ``xdist_group`` together.

    Tests that share the devcloud's demo project (and count its trusts and objects) rely
    on one worker running them all; pytest 9 with pytest-xdist 3.8 silently dropped the
    grouping, which showed only as races between those tests.
    """
    if not os.environ.get("PYTEST_XDIST_WORKER") or not session.config.getvalue("loadgroup"):
        return
    for item in session.items:
        if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
            raise pytest.UsageError(
                f"--dist loadgroup did not group {item.nodeid}: this pytest and "
                "pytest-xdist do not work together (see constraints.txt)"
            )


@pytest.fixture(autouse=True)
def _devcloud_keeps_the_broker(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests of the devcloud (``xdist_group("devcloud")``) hold the machine's RabbitMQ
    shared while they run: a cluster test that restarts it waits (tests/shared_broker.py)."""
    mark = request.node.get_closest_marker("xdist_group")
    name = (mark.args[0] if mark.args else mark.kwargs.get("name")) if mark else None
    if name != "devcloud":
        yield
        return
    with broker_in_use():
        yield
