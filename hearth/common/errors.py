"""Every error a user can cause, with its HTTP status and Heat's error type name.

The API turns a ``HearthError`` into Heat's error body: ``error.type`` is ``heat_type`` (the
name Heat gives the same failure, so clients that match on it keep working) and the message
is ``str(error)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class HearthError(Exception):
    """Base of all user-facing errors."""

    http_status: int = 400
    # Heat's numeric code for errors a caller may ask to ignore (``ignore_errors``).
    error_code: str | None = None

    def __init__(self, message: str) -> None:
        if self.error_code:
            message = f"HEAT-E{self.error_code} {message}"
        super().__init__(message)
        self.message = message

    @property
    def heat_type(self) -> str:
        return type(self).__name__

    def __str__(self) -> str:
        return self.message


def format_path(path: Sequence[str | int]) -> str:
    """Heat's dotted path: ``resources.server.properties.networks[0].port``."""
    out = ""
    for item in path:
        if isinstance(item, int) or (isinstance(item, str) and item.isdigit()):
            out += f"[{item}]"
        elif out:
            out += f".{item}"
        else:
            out = str(item)
    return out


class StackValidationFailed(HearthError):
    """A template, environment or stack definition is invalid.

    ``error`` is a short class of error (Heat puts e.g. ``Property error`` there), ``path``
    the location inside the template, ``detail`` the message proper.
    """

    def __init__(
        self,
        detail: str = "",
        path: Sequence[str | int] = (),
        error: str = "",
    ) -> None:
        self.error = error
        self.path: list[str | int] = list(path)
        self.detail = detail
        where = format_path(self.path)
        text = (f"{error}: " if error else "") + (f"{where}: " if where else "") + detail
        super().__init__(text)

    @classmethod
    def wrap(
        cls, exc: BaseException, path: Sequence[str | int], error: str | None = None
    ) -> StackValidationFailed:
        """Put ``path`` in front of the location of ``exc`` (or of a plain error)."""
        if isinstance(exc, StackValidationFailed):
            return cls(exc.detail, [*path, *exc.path], exc.error if error is None else error)
        return cls(str(exc), path, error or "")


class TemplateRejected(StackValidationFailed):
    """A template POST /validate refuses: Heat's engine hands the fault back as text, which
    its API answers as a plain 400 of type HTTPBadRequest."""

    @property
    def heat_type(self) -> str:
        return "HTTPBadRequest"


class InvalidTemplateVersion(HearthError):
    def __init__(self, explanation: str) -> None:
        super().__init__(f"The template version is invalid: {explanation}")


class InvalidTemplateSection(HearthError):
    def __init__(self, section: str) -> None:
        super().__init__(f"The template section is invalid: {section}")


class InvalidTemplateReference(HearthError):
    def __init__(self, resource: str, key: str) -> None:
        super().__init__(f'The specified reference "{resource}" (in {key}) is incorrect.')


class InvalidTemplateAttribute(HearthError):
    def __init__(self, resource: str, key: str) -> None:
        super().__init__(
            f"The Referenced Attribute ({resource} {key}) is incorrect."
        )


class TemplateOutputError(HearthError):
    """A nested stack's output read as an attribute could not be resolved."""

    def __init__(self, resource: str, attribute: str, message: str) -> None:
        super().__init__(f"Error in {resource} output {attribute}: {message}")


class UserParameterMissing(HearthError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"The Parameter ({key}) was not provided.")


class UnknownUserParameter(HearthError):
    def __init__(self, key: str) -> None:
        super().__init__(f"The Parameter ({key}) was not defined in template.")


class ImmutableParameterModified(HearthError):
    def __init__(self, keys: Iterable[str]) -> None:
        names = ", ".join(keys)
        super().__init__(
            "The following parameters are immutable and may not be updated: " + names
        )


class InvalidMergeStrategyForParam(HearthError):
    def __init__(self, strategy: str, param: str) -> None:
        super().__init__(
            f"Invalid merge strategy '{strategy}' for parameter '{param}'."
        )


class ConflictingMergeStrategyForParam(HearthError):
    def __init__(self, strategy: str, param: str, env_file: str) -> None:
        super().__init__(
            f"Conflicting merge strategy '{strategy}' for parameter '{param}' "
            f"in file '{env_file}'."
        )


class InvalidSchemaError(HearthError):
    pass


class InvalidEnvironment(HearthError):
    """An environment that is not a mapping or has a bad section."""


class InvalidBreakPointHook(HearthError):
    pass


class InvalidRestrictedAction(HearthError):
    pass


class InvalidExternalResourceDependency(HearthError):
    def __init__(self, external_id: str, resource_type: str) -> None:
        super().__init__(
            f"Invalid dependency with external {resource_type} resource: {external_id}"
        )


class NotSupported(HearthError):
    def __init__(self, feature: str) -> None:
        super().__init__(f"{feature} is not supported.")


class RequestLimitExceeded(HearthError):
    def __init__(self, message: str) -> None:
        super().__init__(f"Request limit exceeded: {message}")


class TemplateBudgetExceeded(HearthError):
    """A template's work went over a CPU-time, memory or value-size budget."""

    http_status = 413


class TemplateParseError(HearthError):
    """The text is not JSON/YAML, or is unsafe to load (alias bombs, absurd nesting)."""


class ResourceTypeNotFound(StackValidationFailed):
    """Heat reports an unknown type as StackValidationFailed; kept as its own class here."""

    @property
    def heat_type(self) -> str:
        return "StackValidationFailed"


class ResourceTypeUnavailable(HearthError):
    error_code = "99001"

    def __init__(self, resource_type: str, reason: str, service: str = "hearth") -> None:
        self.resource_type = resource_type
        super().__init__(
            f"Service {service} is not available for resource type {resource_type}, "
            f"reason: {reason}"
        )


class CircularDependencyException(HearthError):
    def __init__(self, cycle: str) -> None:
        super().__init__(f"Circular Dependency Found: {cycle}")


class Invalid(HearthError):
    def __init__(self, reason: str) -> None:
        super().__init__(f"Data supplied was not valid: {reason}")


class EntityNotFound(HearthError):
    http_status = 404

    def __init__(self, entity: str, name: str) -> None:
        super().__init__(f"The {entity} ({name}) could not be found.")


class EncryptionKeyMissing(HearthError):
    """The server cannot encrypt: ``auth_encryption_key`` is unset or too short."""

    http_status = 500

    def __init__(self, problem: str = "is not set") -> None:
        super().__init__(
            f"auth_encryption_key {problem} in [DEFAULT] of the Hearth config; it is needed to "
            "encrypt hidden parameters and resource properties (set it, or set "
            "encrypt_parameters_and_properties = false)"
        )


class DecryptionFailed(HearthError):
    """Stored secrets do not decrypt with the configured key (it changed since they were saved)."""

    http_status = 500

    def __init__(self, detail: str = "") -> None:
        super().__init__(
            "Stored encrypted data could not be decrypted with the configured "
            "auth_encryption_key in [DEFAULT] of the Hearth config; it must be the key that was "
            "in use when the data was saved" + (f" ({detail})" if detail else "")
        )


class StackExists(HearthError):
    http_status = 409

    def __init__(self, stack_name: str) -> None:
        super().__init__(f"The Stack ({stack_name}) already exists.")


class ActionInProgress(HearthError):
    http_status = 409

    def __init__(self, stack_name: str, action: str) -> None:
        super().__init__(f"Stack {stack_name} already has an action ({action}) in progress.")


class ActionNotComplete(HearthError):
    http_status = 409

    def __init__(self, stack_name: str, action: str) -> None:
        super().__init__(
            f"Stack {stack_name} has an action ({action}) in progress or failed state."
        )


class ResourceNotFound(EntityNotFound):
    def __init__(self, resource_name: str, stack_name: str) -> None:
        HearthError.__init__(
            self,
            f"The Resource ({resource_name}) could not be found in Stack {stack_name}.",
        )


class ResourceNotAvailable(HearthError):
    http_status = 404

    def __init__(self, resource_name: str) -> None:
        super().__init__(f"The Resource ({resource_name}) is not available.")


class SnapshotNotFound(EntityNotFound):
    def __init__(self, snapshot: str, stack: str) -> None:
        HearthError.__init__(
            self, f"The Snapshot ({snapshot}) for Stack ({stack}) could not be found."
        )


class PhysicalResourceIDAmbiguity(HearthError):
    def __init__(self, phys_id: str) -> None:
        super().__init__(f"Multiple resources were found with the physical ID ({phys_id}).")


class StackResourceLimitExceeded(HearthError):
    def __init__(self) -> None:
        super().__init__("Maximum resources per stack exceeded.")


class NotFound(HearthError):
    """Heat's generic NotFound (404), e.g. an unknown output key or snapshot id."""

    http_status = 404


class Forbidden(HearthError):
    """A policy rule denied the request; Heat's ``Forbidden`` with Heat's message."""

    http_status = 403

    def __init__(self, action: str = "this action") -> None:
        self.action = action
        super().__init__(f"You are not authorized to use {action}.")


class InvalidTenant(HearthError):
    http_status = 403

    def __init__(self, target: str, actual: str) -> None:
        super().__init__(f"Searching Tenant {target} from Tenant {actual} forbidden.")


class DatabaseUnavailable(HearthError):
    """The database did not answer (restarting, crashed, unreachable): nothing was changed by
    this request, and the same request may be sent again shortly."""

    http_status = 503

    def __init__(self) -> None:
        super().__init__(
            "The database is unavailable at the moment (it went away or is restarting); "
            "nothing was changed. Try again shortly."
        )

    @property
    def heat_type(self) -> str:
        return "DBConnectionError"  # oslo.db's name, which Heat reports for the same failure
