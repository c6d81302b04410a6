"""Support status of resource types, properties and attributes, as Heat serves it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

UNKNOWN = "UNKNOWN"
SUPPORTED = "SUPPORTED"
DEPRECATED = "DEPRECATED"
UNSUPPORTED = "UNSUPPORTED"
HIDDEN = "HIDDEN"
SUPPORT_STATUSES: tuple[str, ...] = (UNKNOWN, SUPPORTED, DEPRECATED, UNSUPPORTED, HIDDEN)


def is_valid_status(status: object) -> bool:
    return status in SUPPORT_STATUSES


@dataclass(frozen=True)
class SupportStatus:
    """Where a type (or property, attribute) stands, since which version, and what replaced it.

    ``substitute_class`` names the plugin class a stack update may switch this type to in
    place (a type migration) instead of replacing the resource.
    """

    status: str = SUPPORTED
    version: str | None = None
    message: str | None = None
    previous_status: SupportStatus | None = None
    substitute_class: type | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.previous_status is not None and not isinstance(
            self.previous_status, SupportStatus
        ):
            raise ValueError(
                "previous_status must be SupportStatus instead of "
                f"{type(self.previous_status)}"
            )
        if self.status not in SUPPORT_STATUSES:
            # Heat keeps the object usable rather than refusing a plugin over a typo.
            object.__setattr__(self, "status", UNKNOWN)
            object.__setattr__(
                self, "message", f"Specified status is invalid, defaulting to {UNKNOWN}"
            )
            object.__setattr__(self, "version", None)
            object.__setattr__(self, "previous_status", None)

    @property
    def hidden(self) -> bool:
        return self.status == HIDDEN

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "message": self.message,
            "version": self.version,
            "previous_status": (
                self.previous_status.to_dict() if self.previous_status is not None else None
            ),
        }

    def is_substituted(self, substitute_class: type) -> bool:
        return self.substitute_class is not None and substitute_class is self.substitute_class
