"""OS::Heat::Delay: a pause, placed in the dependency graph, during chosen actions."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.base import Resource
from hearth.resources.builtin import waiting
from hearth.resources.definition import ValidationScope
from hearth.resources.exceptions import PollDelay
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import AllowedValues, Range

MIN_WAIT = "min_wait"
MAX_JITTER = "max_jitter"
JITTER_MULTIPLIER = "jitter_multiplier"
ACTIONS = "actions"
DELAY_ACTIONS = ("CREATE", "DELETE", "SUSPEND", "RESUME")


def _seconds(description: str, default: float) -> PropertySchema:
    return PropertySchema(
        PropertySchema.NUMBER,
        description,
        update_allowed=True,
        default=default,
        constraints=[Range(min=0)],
    )


def _longest(properties: Properties) -> tuple[float, float]:
    """The minimum wait and the largest jitter, in seconds."""
    jitter = properties[MAX_JITTER] * properties[JITTER_MULTIPLIER]
    return properties[MIN_WAIT], jitter


class Delay(Resource):
    """Waits ``min_wait`` plus a random jitter during the listed actions.

    Used between resources to space out their creation (or deletion), e.g. to spread the
    members of a large group over time.
    """

    type_description = (
        "A resource that pauses for a configurable delay.\n\n"
        "By manipulating the dependency relationships between resources in the\n"
        "template, a delay can be inserted at an arbitrary point during e.g. stack\n"
        "creation or deletion. They delay will occur after any resource that it\n"
        "depends on during CREATE or SUSPEND, and before any resource that it\n"
        "depends on during DELETE or RESUME. Similarly, it will occur before any\n"
        "resource that depends on it during CREATE or SUSPEND, and after any\n"
        "resource thet depends on it during DELETE or RESUME.\n\n"
        "If a non-zero maximum jitter is specified, a random amount of jitter -\n"
        "chosen with uniform probability in the range from 0 to the product of the\n"
        "maximum jitter value and the jitter multiplier (1s by default) - is added\n"
        "to the minimum delay time. This can be used, for example, in the scaled\n"
        "unit of a large scaling group to prevent 'thundering herd' issues."
    )
    support_status = SupportStatus(version="11.0.0")
    # The delay is timed from the start in the cookie, whichever engine polls.
    polls_from_cookie = True
    properties_schema = {
        MIN_WAIT: _seconds("Minimum time in seconds to wait during the specified actions.", 0),
        MAX_JITTER: _seconds("Maximum jitter to add to the minimum wait time.", 0),
        JITTER_MULTIPLIER: _seconds(
            "Number of seconds to multiply the maximum jitter value by.", 1.0
        ),
        ACTIONS: PropertySchema(
            PropertySchema.LIST,
            "Actions during which the delay will occur.",
            update_allowed=True,
            default=["CREATE"],
            constraints=[AllowedValues(list(DELAY_ACTIONS))],
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        min_wait, jitter = _longest(properties)
        longest = min_wait + jitter
        if longest > scope.stack_timeout:
            raise StackValidationFailed(
                f"{scope.type_name} maximum delay {longest}s exceeds stack timeout."
            )

    def _start(self, action: str) -> dict[str, Any]:
        wait = 0.0
        if action in self.properties[ACTIONS]:
            min_wait, jitter = _longest(self.properties)
            wait = min_wait + jitter * random.random()
        return waiting.start(wait)

    def handle_create(self) -> dict[str, Any]:
        return self._start("CREATE")

    def handle_delete(self) -> dict[str, Any]:
        return self._start("DELETE")

    def handle_suspend(self) -> dict[str, Any]:
        return self._start("SUSPEND")

    def handle_resume(self) -> dict[str, Any]:
        return self._start("RESUME")

    def _waited(self, cookie: Mapping[str, Any]) -> bool:
        wait = float(cookie["wait_secs"])
        if not wait:
            return True
        remaining = wait - waiting.elapsed(cookie)
        if remaining <= 0:
            return True
        if remaining >= 4:
            # No point looking before half the remaining time has passed.
            raise PollDelay(int(remaining // 2))
        return False

    def check_create_complete(self, cookie: Mapping[str, Any]) -> bool:
        return self._waited(cookie)

    def check_delete_complete(self, cookie: Mapping[str, Any]) -> bool:
        return self._waited(cookie)

    def check_suspend_complete(self, cookie: Mapping[str, Any]) -> bool:
        return self._waited(cookie)

    def check_resume_complete(self, cookie: Mapping[str, Any]) -> bool:
        return self._waited(cookie)
