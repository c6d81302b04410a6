"""OS::Heat::Delay: a randomised pause during chosen actions, polled with PollDelay."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import StackValidationFailed
from hearth.resources.builtin import delay
from hearth.resources.builtin.delay import Delay
from hearth.resources.exceptions import PollDelay
from tests.unit.resources.conftest import ManualClock
from tests.unit.resources.fakes import make


@pytest.fixture
def half(monkeypatch: pytest.MonkeyPatch) -> None:
    """random() returns 0.5: the jitter is half its maximum."""
    monkeypatch.setattr(delay.random, "random", lambda: 0.5)


def made(props: dict[str, Any]) -> Any:
    return make(Delay, props, type_name="OS::Heat::Delay")[0]


def test_waits_min_plus_jitter_during_create(clock: ManualClock, half: None) -> None:
    res = made({"min_wait": 1, "max_jitter": 2, "jitter_multiplier": 1.5})
    cookie = res.handle_create()
    assert cookie["wait_secs"] == 1 + 0.5 * 2 * 1.5
    assert not res.check_create_complete(cookie)
    clock.advance(2.5)
    assert res.check_create_complete(cookie)
    # Heat's Delay never has a physical id.
    assert res.resource_id is None


def test_long_waits_ask_to_be_polled_less(clock: ManualClock) -> None:
    res = made({"min_wait": 20})
    cookie = res.handle_create()
    with pytest.raises(PollDelay) as delayed:
        res.check_create_complete(cookie)
    assert delayed.value.seconds == 10
    clock.advance(17)
    assert not res.check_create_complete(cookie)
    clock.advance(3)
    assert res.check_create_complete(cookie)


@pytest.mark.parametrize("action", ["delete", "suspend", "resume"])
def test_only_listed_actions_wait(clock: ManualClock, action: str) -> None:
    res = made({"min_wait": 5})
    cookie = getattr(res, f"handle_{action}")()
    assert getattr(res, f"check_{action}_complete")(cookie)
    listed = made({"min_wait": 2, "actions": [action.upper()]})
    cookie = getattr(listed, f"handle_{action}")()
    assert not getattr(listed, f"check_{action}_complete")(cookie)
    clock.advance(2)
    assert getattr(listed, f"check_{action}_complete")(cookie)


def test_longest_delay_must_fit_the_stack_timeout() -> None:
    Delay.validate_definition("d", {"min_wait": 3000, "max_jitter": 600})
    with pytest.raises(StackValidationFailed) as err:
        Delay.validate_definition(
            "d", {"min_wait": 3000, "max_jitter": 1000}, type_name="OS::Heat::Delay"
        )
    assert str(err.value) == "OS::Heat::Delay maximum delay 4000.0s exceeds stack timeout."
    with pytest.raises(StackValidationFailed):
        Delay.validate_definition("d", {"min_wait": 61}, stack_timeout=60)
    # POST /validate does not compare with a timeout.
    Delay.validate_definition("d", {"min_wait": 10**6}, strict=False)


def test_property_changes_replace_it() -> None:
    assert Delay.plan_update("d", {"min_wait": 1}, {"min_wait": 2}).replace
    assert not Delay.has_handler("check") and not Delay.has_handler("signal")
