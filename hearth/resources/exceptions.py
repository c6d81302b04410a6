"""What resource plugins raise to steer the engine, and the resource errors users see."""

from __future__ import annotations

from hearth.common.errors import HearthError, format_path


class UpdateReplace(Exception):
    """The change cannot be made in place: the resource must be replaced."""

    def __init__(self, resource_name: str = "Unknown") -> None:
        super().__init__(f"The Resource {resource_name} requires replacement.")
        self.resource_name = resource_name


class PollDelay(Exception):
    """Raised by ``check_*_complete``: do not poll again for ``seconds``."""

    def __init__(self, seconds: float) -> None:
        if seconds <= 0:
            raise ValueError("PollDelay needs a positive number of seconds")
        super().__init__(f"poll again in {seconds}s")
        self.seconds = seconds


class NoActionRequired(Exception):
    """Raised by ``handle_signal`` to ignore a signal without recording an event."""

    def __init__(self, res_name: str = "Unknown", reason: str = "") -> None:
        super().__init__(
            f"The resource {res_name} could not perform scaling action: {reason}"
        )


class ResourceActionNotSupported(HearthError):
    """The resource type has no handler for the action asked of it (e.g. ``signal``)."""

    def __init__(self, action: str) -> None:
        self.action = action
        super().__init__(f"{action} is not supported for resource.")


def failure_reason(exc: BaseException, resource_name: str, section: str = "resources") -> str:
    """Heat's status reason for a resource action that raised ``exc``.

    ``<ExceptionClass>: resources.<name>: <message>``, e.g. ``ValueError: resources.r: Test
    Resource failed r``. ``section`` is ``Resources`` in CloudFormation templates.
    """
    if isinstance(exc, NestedStackFailed):
        # Heat formats the whole path again: a member "0" reads "[0]", a child's own
        # "resources[0]" stays as it is.
        where = format_path([section, resource_name, *exc.path])
        return f"{exc.error}: {where}: {exc.message}" if exc.error else f"{where}: {exc.message}"
    kind = exc.heat_type if isinstance(exc, HearthError) else type(exc).__name__
    return f"{kind}: {format_path([section, resource_name])}: {exc}"


class NestedStackFailed(Exception):
    """A child stack ended its action FAILED; its reason is carried over as Heat does.

    A child's reason such as ``Resource CREATE failed: ValueError: resources.oops: boom`` is
    split into the error (``ValueError``), the path inside the child (``resources.oops``) and
    the message, so the parent's reason reads
    ``ValueError: resources.<parent>.resources.oops: boom``.
    """

    def __init__(self, reason: str, action: str) -> None:
        super().__init__(reason)
        self.error = ""
        self.path: list[str] = []
        self.message = reason
        marker = f"Resource {action.upper()} failed: "
        if marker in reason:
            parts = [p.strip() for p in reason.split(":")]
            if len(parts) >= 4:
                self.error = parts[1]
                self.path = parts[2].split(".")
                self.message = ": ".join(parts[3:])
