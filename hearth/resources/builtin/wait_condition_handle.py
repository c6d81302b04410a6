"""Wait condition handles: where instances send their "I am ready" signals.

A handle makes an unguessable secret when it is created and hands out a URL on Hearth's API
that carries it (``{public_url}/v1/signal|waitcondition/{resource uuid}/{secret}``): whoever
holds the URL may signal the handle without a Keystone token, as Heat's pre-signed URLs and
stack-user tokens allow. Each signal is kept in the handle's metadata, keyed by its id, as
Heat keeps it; a wait condition reads them from there.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from typing import Any, ClassVar

from hearth.common.errors import StackValidationFailed
from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import Resource
from hearth.resources.builtin.software import agent_credentials
from hearth.resources.context import SIGNAL, WAITCONDITION, signal_token_key
from hearth.resources.definition import ValidationScope
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import AllowedValues

STATUS_SUCCESS = "SUCCESS"
STATUS_FAILURE = "FAILURE"
WAIT_STATUSES = (STATUS_FAILURE, STATUS_SUCCESS)
# Bytes of randomness in a signal URL's secret (43 URL-safe characters).
SECRET_BYTES = 32
# Resource data of a handle whose URL is pre-signed with its stack user's EC2 keypair (the
# user and keypair are kept as agent_credentials keeps them for servers and deployments).
SIGNED_URL_KEY = "ec2_signed_url"


class BaseWaitConditionHandle(Resource):
    """What every handle shares: its secret, and signals validated and merged into metadata."""

    # The metadata keys of one signal, in this order: data, reason, status, id.
    metadata_keys: ClassVar[tuple[str, str, str, str]] = ("data", "reason", "status", "id")
    # Which public signal URL the handle's secret opens.
    signal_kind: ClassVar[str] = SIGNAL

    @property
    def _data_key(self) -> str:
        return self.metadata_keys[0]

    @property
    def _reason_key(self) -> str:
        return self.metadata_keys[1]

    @property
    def _status_key(self) -> str:
        return self.metadata_keys[2]

    @property
    def _id_key(self) -> str:
        return self.metadata_keys[3]

    # --- the secret and its URL ----------------------------------------------------------

    def _make_secret(self, kind: str) -> None:
        self.data_set(signal_token_key(kind), secrets.token_urlsafe(SECRET_BYTES), redact=True)

    def _secret(self, kind: str) -> str | None:
        return self.data().get(signal_token_key(kind)) or None

    def _signal_url(self, kind: str) -> str | None:
        secret = self._secret(kind)
        return self.context.signal_url(kind, secret) if secret else None

    def handle_create(self) -> None:
        self._make_secret(self.signal_kind)
        # Heat's id is the handle's stack user; here it is its physical name.
        self.resource_id_set(self.physical_resource_name())

    def handle_delete(self) -> None:
        # The URL stops working at once, not when the row goes.
        for kind in (SIGNAL, WAITCONDITION):
            self.data_delete(signal_token_key(kind))

    # --- a URL of the CFN API pre-signed with a stack user's keypair (Keystone) ------------

    def _make_signed_url(self, kind: str) -> None:
        """With a stack user domain and the CFN API: Heat's pre-signed URL, kept."""
        if not agent_credentials.signs_for_cfn(self):
            return
        url = agent_credentials.cfn_signal_url(self, kind)
        if url is not None:
            self.data_set(SIGNED_URL_KEY, url, redact=True)

    def _drop_signing_user(self) -> None:
        agent_credentials.drop_stack_user(self)
        self.data_delete(SIGNED_URL_KEY)

    def _url(self, kind: str) -> str | None:
        """The pre-signed CFN URL when there is one, else Hearth's secret URL."""
        return self.data().get(SIGNED_URL_KEY) or self._signal_url(kind)

    # --- signals ---------------------------------------------------------------------------

    def normalise_signal_data(self, details: Any, latest: Mapping[str, Any]) -> Any:
        """Hook: the signal as it will be checked (the native handle fills in defaults)."""
        return details

    def _format_ok(self, entry: Any) -> bool:
        if not isinstance(entry, Mapping) or set(entry) != set(self.metadata_keys):
            return False
        return entry[self._status_key] in WAIT_STATUSES

    def handle_signal(self, details: Any = None) -> str | None:
        written: list[Mapping[str, Any]] = []

        def merge(current: Any) -> dict[str, Any]:
            latest = dict(current) if isinstance(current, Mapping) else {}
            entry = self.normalise_signal_data(details, latest)
            if not self._format_ok(entry):
                raise ValueError("Metadata format invalid")
            stored = dict(entry)
            # A repeated id overwrites the earlier signal, as in Heat.
            latest[str(stored.pop(self._id_key))] = stored
            written.append(entry)
            return latest

        self.metadata = self.context.metadata_merge(merge)
        entry = written[-1]
        return f"status:{entry[self._status_key]} reason:{entry[self._reason_key]}"

    def _signals(self) -> dict[str, Any]:
        metadata = self.context.metadata_get()
        return dict(metadata) if isinstance(metadata, Mapping) else {}

    def get_status(self) -> list[str]:
        """The status of every signal received."""
        return [str(v.get(self._status_key)) for v in self._signals().values()]

    def get_status_reason(self, status: str) -> list[str]:
        """The reasons of the signals with this status."""
        return [
            str(v.get(self._reason_key)) for v in self._signals().values()
            if v.get(self._status_key) == status
        ]

    def signal_data(self) -> dict[str, Any]:
        """id -> data of every signal (a wait condition's ``data`` attribute)."""
        return {k: v.get(self._data_key) for k, v in self._signals().items()}


# --- OS::Heat::WaitConditionHandle ---------------------------------------------------------

SIGNAL_TRANSPORT = "signal_transport"
CFN_SIGNAL, TEMP_URL_SIGNAL, HEAT_SIGNAL, NO_SIGNAL, ZAQAR_SIGNAL, TOKEN_SIGNAL = (
    "CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "ZAQAR_SIGNAL", "TOKEN_SIGNAL",
)
SIGNAL_TRANSPORTS = (CFN_SIGNAL, TEMP_URL_SIGNAL, HEAT_SIGNAL, NO_SIGNAL, ZAQAR_SIGNAL,
                     TOKEN_SIGNAL)
# The others need Swift or Zaqar.
SUPPORTED_TRANSPORTS = (TOKEN_SIGNAL, CFN_SIGNAL, HEAT_SIGNAL, NO_SIGNAL)
TOKEN, ENDPOINT, CURL_CLI, SIGNAL_ATTR = "token", "endpoint", "curl_cli", "signal"
CURL = ("curl -i -X POST -H 'Content-Type: application/json' "
        "-H 'Accept: application/json' {endpoint}")


def _attribute(description: str) -> AttributeSchema:
    return AttributeSchema(description, cache_mode=AttributeSchema.CACHE_NONE,
                           type=AttributeSchema.STRING)


class HeatWaitConditionHandle(BaseWaitConditionHandle):
    """The native handle; signalled by POST to its ``endpoint`` (no token needed)."""

    type_description = (
        "Resource for managing instance signals.\n\n"
        "The main points of this resource are:\n"
        "  - have no dependencies (so the instance can reference it).\n"
        "  - create credentials to allow for signalling from the instance.\n"
        "  - handle signals from the instance, validate and store result."
    )
    support_status = SupportStatus(version="2014.2")
    properties_schema = {
        SIGNAL_TRANSPORT: PropertySchema(
            PropertySchema.STRING,
            "How the client will signal the wait condition. CFN_SIGNAL will allow an HTTP "
            "POST to a CFN keypair signed URL. TEMP_URL_SIGNAL will create a Swift TempURL "
            "to be signalled via HTTP PUT. HEAT_SIGNAL will allow calls to the Heat API "
            "resource-signal using the provided keystone credentials. ZAQAR_SIGNAL will "
            "create a dedicated zaqar queue to be signalled using the provided keystone "
            "credentials. TOKEN_SIGNAL will allow and HTTP POST to a Heat API endpoint with "
            "the provided keystone token. NO_SIGNAL will result in the resource going to a "
            "signalled state without waiting for any signal.",
            default=TOKEN_SIGNAL,
            constraints=[AllowedValues(list(SIGNAL_TRANSPORTS))],
            support_status=SupportStatus(version="6.0.0"),
        ),
    }
    attributes_schema = {
        TOKEN: _attribute(
            "Token for stack-user which can be used for signalling handle when "
            "signal_transport is set to TOKEN_SIGNAL. None for all other signal transports."
        ),
        ENDPOINT: _attribute(
            "Endpoint/url which can be used for signalling handle when signal_transport is "
            "set to TOKEN_SIGNAL. None for all other signal transports."
        ),
        CURL_CLI: _attribute(
            "Convenience attribute, provides curl CLI command prefix, which can be used for "
            "signalling handle completion or failure when signal_transport is set to "
            "TOKEN_SIGNAL. You can signal success by adding --data-binary "
            "'{\"status\": \"SUCCESS\"}' , or signal failure by adding --data-binary "
            "'{\"status\": \"FAILURE\"}'. This attribute is set to None for all other "
            "signal transports."
        ),
        SIGNAL_ATTR: _attribute(
            "JSON serialized map that includes the endpoint, token and/or other attributes "
            "the client must use for signalling this handle. The contents of this map depend "
            "on the type of signal selected in the signal_transport property."
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        _check_transport(properties[SIGNAL_TRANSPORT], scope.name)

    @property
    def _transport(self) -> str:
        return str(self.properties[SIGNAL_TRANSPORT])

    def handle_create(self) -> None:
        # A value that came from another resource is only known now.
        _check_transport(self._transport, self.name)
        if self._transport == TOKEN_SIGNAL:
            self._make_secret(SIGNAL)
        elif self._transport == CFN_SIGNAL:
            self._make_secret(WAITCONDITION)
            self._make_signed_url(WAITCONDITION)
        elif self._transport == HEAT_SIGNAL:
            agent_credentials.stack_user(self)
        self.resource_id_set(self.physical_resource_name())

    def handle_delete(self) -> None:
        super().handle_delete()
        self._drop_signing_user()  # the HEAT_SIGNAL user as well

    def normalise_signal_data(self, details: Any, latest: Mapping[str, Any]) -> Any:
        if details and not isinstance(details, Mapping):
            # Heat fails on such a body too (it cannot copy it); say what is wrong.
            raise ValueError("Metadata format invalid")
        number = len(latest) + 1
        entry = dict(details) if details else {}
        # Missing values are tolerated; a signal without a status is a success.
        entry.setdefault("reason", f"Signal {number} received")
        entry.setdefault("data", None)
        entry.setdefault("id", number)
        entry.setdefault("status", STATUS_SUCCESS)
        return entry

    def _heat_signal(self) -> dict[str, Any]:
        """HEAT_SIGNAL: the stack user's credentials and the resource-signal URL they may POST
        to (in the user's project), as Heat gives them."""
        user = agent_credentials.stack_user(self)
        signal: dict[str, Any] = {
            "auth_url": user.auth_url, "username": user.username, "user_id": user.user_id,
            "password": user.password, "project_id": user.project_id,
            "alarm_url": self.context.authenticated_signal_url(user.project_id),
        }
        if user.region_name:
            signal["region_name"] = user.region_name
        return signal

    def get_status(self) -> list[str]:
        if self._transport == NO_SIGNAL:
            # Heat signals a NO_SIGNAL handle each time its status is asked for.
            self.handle_signal({})
        return super().get_status()

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        transport = self._transport
        if name == SIGNAL_ATTR:
            if transport == NO_SIGNAL:
                return json.dumps({})
            if transport == HEAT_SIGNAL:
                return json.dumps(self._heat_signal())
            kind = WAITCONDITION if transport == CFN_SIGNAL else SIGNAL
            url = self._url(kind)
            return json.dumps({"alarm_url": url}) if url else json.dumps(None)
        if transport != TOKEN_SIGNAL:
            return None
        if name == TOKEN:
            return self._secret(SIGNAL)
        endpoint = self._signal_url(SIGNAL)
        if name == ENDPOINT:
            return endpoint
        if name == CURL_CLI:
            return CURL.format(endpoint=endpoint) if endpoint else None
        return None


def _check_transport(transport: Any, name: str) -> None:
    if transport in SIGNAL_TRANSPORTS and transport not in SUPPORTED_TRANSPORTS:
        raise StackValidationFailed(
            f"signal_transport {transport} is not supported by Hearth (it needs Swift or "
            f"Zaqar); use one of {', '.join(SUPPORTED_TRANSPORTS)}",
            ["resources", name, "properties", SIGNAL_TRANSPORT],
        )


# --- AWS::CloudFormation::WaitConditionHandle and OS::Heat::UpdateWaitConditionHandle ------


class WaitConditionHandle(BaseWaitConditionHandle):
    """The CloudFormation handle: its reference is the URL to PUT (or POST) signals to.

    With a stack user domain (Keystone) and the CFN API served, that is Heat's URL: the CFN
    API's ``/v1/waitcondition/<handle ARN>`` pre-signed with the EC2 keypair of a stack user
    made for the handle (cfn-signal PUTs there; the keypair and user go with the handle).
    Otherwise it is Hearth's secret URL on the Orchestration API.
    """

    type_description = (
        "AWS WaitConditionHandle resource.\n\n"
        "the main point of this class is to :\n"
        "have no dependencies (so the instance can reference it)\n"
        "generate a unique url (to be returned in the reference)\n"
        "then the cfn-signal will use this url to post to and\n"
        "WaitCondition will poll it to see if has been written to."
    )
    support_status = SupportStatus(version="2014.1")
    metadata_keys = ("Data", "Reason", "Status", "UniqueId")
    signal_kind = WAITCONDITION

    def handle_create(self) -> None:
        super().handle_create()
        self._make_signed_url(WAITCONDITION)

    def handle_delete(self) -> None:
        super().handle_delete()
        self._drop_signing_user()

    def get_reference_id(self) -> str | None:
        if self.resource_id is not None:
            url = self._url(WAITCONDITION)
            if url:
                return url
        return self.name

    def handle_signal(self, details: Any = None) -> str | None:
        # An empty signal is recorded (as an event) but changes nothing, as in Heat.
        if details is None:
            return None
        return super().handle_signal(details)


class UpdateWaitConditionHandle(WaitConditionHandle):
    """A CloudFormation handle replaced by every stack update: new URL, no signals."""

    type_description = (
        "WaitConditionHandle that clears signals and changes handle on update.\n\n"
        "This works similarly to an AWS::CloudFormation::WaitConditionHandle, except\n"
        "that on update it clears all signals received and changes the handle. Using\n"
        "this handle means that you must setup the signal senders to send their\n"
        "signals again any time the update handle changes. This allows us to roll\n"
        "out new configurations and be confident that they are rolled out once\n"
        "UPDATE COMPLETE is reached."
    )
    support_status = SupportStatus(version="2014.1")
    # Heat's _needs_update asks for a replacement whatever changed, or did not: the stack
    # update planner reads this flag when the definition is unchanged.
    replace_on_every_update: ClassVar[bool] = True

    @classmethod
    def needs_replace(cls, after: Properties) -> bool:
        return True
