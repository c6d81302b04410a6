"""Wait conditions: a resource that is done once its handle has received enough signals.

The create (or an update of ``count``) polls the handle's signals: it completes when ``count``
SUCCESS signals are in, fails as soon as any FAILURE is, and fails when ``timeout`` seconds
pass first. The start time travels in the cookie (``waiting``), so any engine worker can poll.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import NO_DESCRIPTION, Resource
from hearth.resources.builtin import waiting
from hearth.resources.builtin.wait_condition_handle import (
    STATUS_FAILURE,
    STATUS_SUCCESS,
    BaseWaitConditionHandle,
    WaitConditionHandle,
)
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import Range

HANDLE_DESCRIPTION = "A reference to the wait condition handle used to signal this wait condition."
TIMEOUT_DESCRIPTION = (
    "The number of seconds to wait for the correct number of signals to arrive."
)
COUNT_DESCRIPTION = (
    "The number of success signals that must be received before the stack creation process "
    "continues."
)
DATA_DESCRIPTION = (
    "JSON string containing data associated with wait condition signals sent to the handle."
)
# A CloudFormation handle's URL: .../v1/waitcondition/<resource uuid>/<secret>.
_CFN_URL = re.compile(r"/v1/waitcondition/([^/]+)/[^/]+$")


class WaitConditionFailure(Exception):
    """A FAILURE signal arrived; the message is the failure reasons joined by ``;``."""

    def __init__(self, handle: BaseWaitConditionHandle) -> None:
        super().__init__(";".join(handle.get_status_reason(STATUS_FAILURE)))


class WaitConditionTimeout(Exception):
    """The timeout passed first: ``<received> of <count> received[ - <reasons>]``."""

    def __init__(self, handle: BaseWaitConditionHandle, count: int) -> None:
        reasons = handle.get_status_reason(STATUS_SUCCESS)
        message = f"{len(reasons)} of {count} received"
        if reasons:
            message += f" - {';'.join(reasons)}"
        super().__init__(message)


def _properties(
    handle: str, timeout_type: str, count: str, timeout: str
) -> dict[str, PropertySchema]:
    return {
        handle: PropertySchema(PropertySchema.STRING, HANDLE_DESCRIPTION, required=True),
        timeout: PropertySchema(
            timeout_type, TIMEOUT_DESCRIPTION, required=True,
            constraints=[Range(min=1, max=43200)],
        ),
        count: PropertySchema(
            PropertySchema.INTEGER, COUNT_DESCRIPTION, default=1, update_allowed=True,
            constraints=[Range(min=1)],
        ),
    }


def _data_attribute() -> AttributeSchema:
    return AttributeSchema(DATA_DESCRIPTION, cache_mode=AttributeSchema.CACHE_NONE,
                           type=AttributeSchema.STRING)


class HeatWaitCondition(Resource):
    """Waits for ``count`` SUCCESS signals on ``handle`` for at most ``timeout`` seconds."""

    type_description = (
        "Resource for handling signals received by WaitConditionHandle.\n\n"
        "Resource takes WaitConditionHandle and starts to create. Resource is in\n"
        "CREATE_IN_PROGRESS status until WaitConditionHandle doesn't receive\n"
        "sufficient number of successful signals (this number can be specified with\n"
        "count property) and successfully creates after that, or fails due to\n"
        "timeout."
    )
    support_status = SupportStatus(version="2014.2")
    # The wait's start, the handle's name and the count are in the cookie.
    polls_from_cookie = True
    HANDLE: ClassVar[str] = "handle"
    TIMEOUT: ClassVar[str] = "timeout"
    COUNT: ClassVar[str] = "count"
    DATA: ClassVar[str] = "data"
    properties_schema = _properties("handle", PropertySchema.NUMBER, "count", "timeout")
    attributes_schema = {"data": _data_attribute()}

    # --- the handle --------------------------------------------------------------------------

    def _get_handle(self, reference: str | None = None) -> Resource | None:
        return self.context.peer(reference or str(self.properties[self.HANDLE]))

    def _valid_handle(self, handle: Resource | None) -> BaseWaitConditionHandle:
        if isinstance(handle, BaseWaitConditionHandle):
            return handle
        shown = handle.name if handle is not None else self.properties[self.HANDLE]
        raise ValueError(f"{shown} is not a valid wait condition handle.")

    def _start(self) -> dict[str, Any]:
        handle = self._valid_handle(self._get_handle())
        # Later polls find the handle by name (one indexed lookup instead of a scan), and
        # whoever polls needs the count the wait started with.
        return waiting.start(float(self.properties[self.TIMEOUT]), handle=handle.name,
                             count=int(self.properties[self.COUNT]))

    def _wait(self, cookie: Mapping[str, Any]) -> bool:
        handle = self._valid_handle(self._get_handle(str(cookie["handle"])))
        count = int(cookie["count"])
        if waiting.elapsed(cookie) > float(cookie["wait_secs"]):
            raise WaitConditionTimeout(handle, count)
        statuses = handle.get_status()
        if any(s != STATUS_SUCCESS for s in statuses):
            raise WaitConditionFailure(handle)
        return len(statuses) >= count

    # --- lifecycle ------------------------------------------------------------------------

    def handle_create(self) -> dict[str, Any]:
        return self._start()

    def check_create_complete(self, cookie: Mapping[str, Any]) -> bool:
        return self._wait(cookie)

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> dict[str, Any]:
        # Only count updates in place; the wait starts again, with the signals already in.
        if prop_diff:
            self.properties = new_properties
        return self._start()

    def check_update_complete(self, cookie: Mapping[str, Any]) -> bool:
        return self._wait(cookie)

    def handle_delete(self) -> None:
        # Heat empties the handle's signals when its wait condition goes.
        handle = self._get_handle()
        if handle is not None:
            handle.context.metadata_set({})

    def _resolve_attribute(self, name: str) -> Any:
        handle = self._get_handle()
        if not isinstance(handle, BaseWaitConditionHandle):
            return ""
        if name == self.DATA:
            return json.dumps(handle.signal_data())
        return None


class WaitCondition(HeatWaitCondition):
    """AWS::CloudFormation::WaitCondition: the handle is a CloudFormation handle's URL."""

    type_description = NO_DESCRIPTION
    support_status = SupportStatus(version="2014.1")
    HANDLE = "Handle"
    TIMEOUT = "Timeout"
    COUNT = "Count"
    DATA = "Data"
    properties_schema = _properties("Handle", PropertySchema.INTEGER, "Count", "Timeout")
    attributes_schema = {"Data": _data_attribute()}

    def _start(self) -> dict[str, Any]:
        url = str(self.properties[self.HANDLE])
        handle = self._get_handle(url)
        if not isinstance(handle, WaitConditionHandle):
            # Name what the URL names, never the URL itself (it holds the secret).
            found = _CFN_URL.search(url)
            shown = handle.name if handle is not None else (found.group(1) if found else url)
            raise ValueError(f"WaitCondition invalid Handle {shown}")
        return super()._start()
