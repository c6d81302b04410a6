"""OS::Heat::TestResource: a value store with knobs for waiting, failing and replacing."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import Resource
from hearth.resources.builtin import waiting
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import CustomConstraint

VALUE = "value"
UPDATE_REPLACE = "update_replace"
UPDATE_REPLACE_VALUE = "update_replace_value"
FAIL = "fail"
WAIT_SECS = "wait_secs"
ACTION_WAIT_SECS = "action_wait_secs"
ATTR_WAIT_SECS = "attr_wait_secs"
CONSTRAINT_PROP_SECS = "constraint_prop_secs"
CLIENT_NAME = "client_name"
ENTITY_NAME = "entity_name"
OUTPUT = "output"


def _number(description: str, **kwargs: Any) -> PropertySchema:
    return PropertySchema(PropertySchema.NUMBER, description, update_allowed=True, **kwargs)


def _action_wait(action: str) -> PropertySchema:
    return _number(f"Seconds to wait after a{'n' if action == 'update' else ''} {action}. "
                   "Defaults to the global wait_secs.")


class TestResource(Resource):
    """Stores ``value`` (the ``output`` attribute) and waits, fails or asks for replacement
    as its properties say; used by tests of the engine and of templates."""

    type_description = (
        "A resource which stores the string value that was provided.\n\n"
        "This resource is to be used only for testing.\n"
        "It has control knobs such as 'update_replace', 'fail', 'wait_secs'."
    )
    support_status = SupportStatus(version="5.0.0")
    # Its waits are timed from the start in the cookie, whichever engine polls.
    polls_from_cookie = True
    properties_schema = {
        CONSTRAINT_PROP_SECS: _number(
            "Number value for delay during resolve constraint.",
            default=0,
            constraints=[CustomConstraint("test_constr")],
            support_status=SupportStatus(version="6.0.0"),
        ),
        ATTR_WAIT_SECS: _number(
            "Number value for timeout during resolving output value.",
            default=0,
            support_status=SupportStatus(version="6.0.0"),
        ),
        VALUE: PropertySchema(
            PropertySchema.STRING,
            "The input string to be stored.",
            default="test_string",
            update_allowed=True,
        ),
        UPDATE_REPLACE_VALUE: PropertySchema(
            PropertySchema.STRING,
            "Some value that can be stored but can not be updated.",
            support_status=SupportStatus(version="7.0.0"),
        ),
        FAIL: PropertySchema(
            PropertySchema.BOOLEAN,
            "Value which can be set to fail the resource operation to test failure "
            "scenarios.",
            update_allowed=True,
            default=False,
        ),
        UPDATE_REPLACE: PropertySchema(
            PropertySchema.BOOLEAN,
            "Value which can be set to trigger update replace for the particular resource.",
            update_allowed=True,
            default=False,
        ),
        WAIT_SECS: _number("Seconds to wait after an action (-1 is infinite).", default=0),
        ACTION_WAIT_SECS: PropertySchema(
            PropertySchema.MAP,
            "Options for simulating waiting.",
            update_allowed=True,
            schema={action: _action_wait(action) for action in ("create", "update", "delete")},
        ),
        CLIENT_NAME: PropertySchema(
            PropertySchema.STRING, "Client to poll.", default="", update_allowed=True
        ),
        ENTITY_NAME: PropertySchema(
            PropertySchema.STRING, "Client entity to poll.", default="", update_allowed=True
        ),
    }
    attributes_schema = {
        OUTPUT: AttributeSchema(
            "The string that was stored. This value is also available by referencing the "
            "resource.",
            cache_mode=AttributeSchema.CACHE_NONE,
        ),
    }

    def _wait_secs(self, action: str) -> float:
        per_action = self.properties[ACTION_WAIT_SECS]
        secs = per_action.get(action.lower()) if per_action else None
        return float(self.properties[WAIT_SECS] if secs is None else secs)

    def _start(self, action: str, seconds: float | None = None) -> dict[str, Any]:
        # ``fail`` travels in the cookie: whoever polls needs the value the action started with.
        wait = self._wait_secs(action) if seconds is None else seconds
        return waiting.start(wait, action=action, fail=bool(self.properties[FAIL]))

    def handle_create(self) -> dict[str, Any]:
        if not self.properties[FAIL]:
            self.data_set("value", self.properties[VALUE])
            self.resource_id_set(self.physical_resource_name())
        return self._start("CREATE")

    @classmethod
    def needs_replace_with_prop_diff(
        cls, changed: frozenset[str], after: Properties, before: Properties
    ) -> bool:
        return VALUE in changed and bool(after[UPDATE_REPLACE])

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> dict[str, Any]:
        self.properties = new_properties
        value = prop_diff.get(VALUE)
        if not value:
            return self._start("UPDATE", 0)
        if not new_properties[FAIL]:
            self.data_set("value", value)
        return self._start("UPDATE")

    def handle_delete(self) -> dict[str, Any]:
        return self._start("DELETE")

    def handle_check(self) -> None:
        if not self.resource_id:
            raise Exception("Resource not created")

    def check_create_complete(self, cookie: Mapping[str, Any]) -> bool:
        return self._waited(cookie)

    def check_update_complete(self, cookie: Mapping[str, Any]) -> bool:
        return self._waited(cookie)

    def check_delete_complete(self, cookie: Mapping[str, Any]) -> bool:
        return self._waited(cookie)

    def _waited(self, cookie: Mapping[str, Any]) -> bool:
        wait = float(cookie["wait_secs"])
        # A negative wait never ends (the operation's timeout or a cancel does).
        if wait < 0 or waiting.elapsed(cookie) <= wait:
            return False
        if cookie.get("fail") and cookie.get("action") != "DELETE":
            raise ValueError(f"Test Resource failed {self.name}")
        return True

    def _resolve_attribute(self, name: str) -> Any:
        # Heat sleeps here too: the knob exists to make attribute reads slow.
        pause = self.properties[ATTR_WAIT_SECS]
        if pause > 0:
            time.sleep(pause)
        if name == OUTPUT:
            return self.data().get("value")
        return None
