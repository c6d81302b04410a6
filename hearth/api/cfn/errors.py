"""AWS-style errors of the CFN API: a code, an HTTP status, and Heat's XML body.

The body is ``ErrorResponse/Error/{Type, Code, Message}``; the message joins the error's
fixed explanation and its detail with a colon, as Heat writes it. Engine errors are mapped by
their class names, as Heat maps them (``map_remote_error``).
"""

from __future__ import annotations

from dataclasses import dataclass

from hearth.common.errors import HearthError


@dataclass(frozen=True)
class ErrorKind:
    code: str
    status: int
    explanation: str
    sender: bool = True


INCOMPLETE_SIGNATURE = ErrorKind(
    "IncompleteSignature", 400, "The request signature does not conform to AWS standards")
INTERNAL_FAILURE = ErrorKind(
    "InternalFailure", 500, "The request processing has failed due to an internal error",
    sender=False)
INVALID_ACTION = ErrorKind("InvalidAction", 400, "The action or operation requested is invalid")
INVALID_CLIENT_TOKEN_ID = ErrorKind(
    "InvalidClientTokenId", 403, "The certificate or AWS Key ID provided does not exist")
INVALID_PARAMETER_COMBINATION = ErrorKind(
    "InvalidParameterCombination", 400, "Incompatible parameters were used together")
INVALID_PARAMETER_VALUE = ErrorKind(
    "InvalidParameterValue", 400, "A bad or out-of-range value was supplied")
MISSING_AUTHENTICATION_TOKEN = ErrorKind(
    "MissingAuthenticationToken", 403, "Does not contain a valid AWS Access Key or certificate")
MISSING_PARAMETER = ErrorKind(
    "MissingParameter", 400, "A mandatory input parameter is missing")
REQUEST_EXPIRED = ErrorKind(
    "RequestExpired", 400, "Request expired or more than 15mins in the future")
ALREADY_EXISTS = ErrorKind(
    "AlreadyExists", 400, "Resource with the name requested already exists")
ACCESS_DENIED = ErrorKind("AccessDenied", 403, "User is not authorized to perform action")
SIGNATURE_DOES_NOT_MATCH = ErrorKind(
    "SignatureDoesNotMatch", 403,
    "The request signature we calculated does not match the signature you provided")
ACTION_IN_PROGRESS = ErrorKind(
    "InvalidAction", 400, "Cannot perform action on stack while other actions are in progress")
REQUEST_LIMIT_EXCEEDED = ErrorKind(
    "RequestLimitExceeded", 400, "Payload exceeds maximum allowed size")
SERVICE_UNAVAILABLE = ErrorKind(
    "ServiceUnavailable", 503, "Service temporarily unavailable", sender=False)


class CfnError(Exception):
    def __init__(self, kind: ErrorKind, detail: str | None = None) -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return f"{self.kind.explanation}:{self.detail}" if self.detail else self.kind.explanation


# Engine errors (by class name, any class of the error's MRO) and the AWS error they become.
_BY_NAME: dict[str, ErrorKind] = {
    **dict.fromkeys((
        "AttributeError", "ValueError", "InvalidTenant", "EntityNotFound",
        "ResourceActionNotSupported", "ResourceNotFound", "ResourceNotAvailable",
        "StackValidationFailed", "InvalidSchemaError", "InvalidTemplateReference",
        "InvalidTemplateVersion", "InvalidTemplateSection", "UnknownUserParameter",
        "UserParameterMissing", "MissingCredentialError", "ResourcePropertyConflict",
        "PropertyUnspecifiedError", "NotSupported", "InvalidBreakPointHook",
        "PhysicalResourceIDAmbiguity", "TemplateParseError", "InvalidTemplateAttribute",
        "ImmutableParameterModified", "InvalidEnvironment", "Invalid", "BadRequest",
        "NotFound", "SnapshotNotFound",
    ), INVALID_PARAMETER_VALUE),
    "Forbidden": ACCESS_DENIED,
    "NotAuthorized": ACCESS_DENIED,
    "HTTPForbidden": ACCESS_DENIED,
    "StackExists": ALREADY_EXISTS,
    "ActionInProgress": ACTION_IN_PROGRESS,
    "RequestLimitExceeded": REQUEST_LIMIT_EXCEEDED,
    "TemplateBudgetExceeded": REQUEST_LIMIT_EXCEEDED,
}


def from_engine(exc: Exception) -> CfnError:
    """The AWS error for an error the engine (or request parsing) raised."""
    # Only Hearth's own errors carry a message meant for users.
    detail = str(exc) if isinstance(exc, HearthError) else None
    for cls in type(exc).__mro__:
        kind = _BY_NAME.get(cls.__name__)
        if kind is not None:
            return CfnError(kind, detail)
    return CfnError(INTERNAL_FAILURE, detail)
