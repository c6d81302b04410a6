"""The fuzz run's server, harness and Hypothesis settings.

By default each property runs a few dozen cases with a fixed seed (the run is the same every
time, and short enough for every test run). ``HEARTH_FUZZ_CASES=100000`` makes it a long run:
the count is shared out between the properties, every problem is kept rather than the first
ending its property, and the run fails at its end listing each distinct one.
``HEARTH_FUZZ_REPORT=path.json`` writes the run's figures and problems there.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from hearth.api.app import build_app
from hearth.api.auth import WsgiApp
from hearth.cli.serve import serving
from tests.fuzz.harness import Harness
from tests.integration.api.conftest import server_conf

DEFAULT_CASES = 300
TOTAL_CASES = int(os.environ.get("HEARTH_FUZZ_CASES", DEFAULT_CASES))
# A long run keeps going past a problem, so that it reports every distinct one.
KEEP_GOING = "HEARTH_FUZZ_CASES" in os.environ and TOTAL_CASES > DEFAULT_CASES

settings.register_profile(
    "hearth-fuzz",
    derandomize=True,  # the fixed seed: each test's examples follow from its name
    database=None,
    deadline=None,  # the harness's own answer budget is the time limit that counts
    print_blob=True,
    suppress_health_check=list(HealthCheck),
)


def cases(share: float) -> int:
    """This property's part of the run's cases."""
    return max(1, round(TOTAL_CASES * share))


@pytest.fixture(scope="session")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WsgiApp]:
    """The WSGI app of a real server (its engine, database and all), called in-process."""
    # Groups up to 100 members: enough to exercise them, few enough to keep each case short.
    conf = server_conf(tmp_path_factory.mktemp("fuzz"), max_resources_per_stack=100)
    with serving(conf) as running:
        yield build_app(running.engine, conf)


@pytest.fixture(scope="session")
def harness(fuzz_app: WsgiApp) -> Iterator[Harness]:
    fuzz = Harness(fuzz_app, keep_going=KEEP_GOING, report_to=os.environ.get("HEARTH_FUZZ_REPORT"))
    try:
        yield fuzz
    finally:
        fuzz.close()
        fuzz.write_report()
    if KEEP_GOING and fuzz.problems:
        pytest.fail(f"{len(fuzz.problems)} problems, {len(fuzz.distinct_problems())} distinct:\n"
                    + "\n".join(fuzz.distinct_problems()), pytrace=False)
