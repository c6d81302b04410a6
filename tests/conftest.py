"""Checks on the test run itself."""

from __future__ import annotations

import os

import pytest


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
