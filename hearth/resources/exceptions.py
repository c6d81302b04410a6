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
    kind = exc.heat_type if isinstance(exc, HearthError) else type(exc).__name__
    return f"{kind}: {format_path([section, resource_name])}: {exc}"
