"""Reading a request: the JSON body and the query string, checked with Heat's messages."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

import falcon

from hearth.api.faults import BadRequest
from hearth.common.errors import RequestLimitExceeded
from hearth.common.unicode_text import ESCAPE_HINT, surrogate_message, surrogate_path

MAX_QUERY_INTEGER = 2**63 - 1


def read_json(req: falcon.Request, max_size: int) -> Any:
    """The decoded JSON body, or None when there is none."""
    length = req.content_length
    if length is not None and length > max_size:
        raise RequestLimitExceeded(
            f"JSON body size ({length} bytes) exceeds maximum allowed size ({max_size} bytes)."
        )
    raw = req.bounded_stream.read(max_size + 1)
    if len(raw) > max_size:
        raise RequestLimitExceeded(
            f"JSON body size exceeds maximum allowed size ({max_size} bytes)."
        )
    if not raw.strip():
        return None
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"The request body is not valid JSON: {exc}") from None
    except RecursionError:
        raise BadRequest("The request body is not valid JSON: it is nested too deeply.") from None
    # A lone "\ud800" is valid JSON but no text: it could be neither stored nor answered.
    if ESCAPE_HINT.search(raw.decode("utf-8", "replace")):
        where = surrogate_path(body)
        if where is not None:
            raise BadRequest(f"The request body is not valid JSON: {surrogate_message(where)}.")
    return body


def json_object(req: falcon.Request, max_size: int, *, required: bool = True) -> dict[str, Any]:
    """The body, which must be a JSON object (an absent body is ``{}`` unless required)."""
    body = read_json(req, max_size)
    if body is None and not required:
        return {}
    if not isinstance(body, dict):
        raise BadRequest("The request body must be a JSON object.")
    return body


def parse_bool(name: str, value: Any) -> bool:
    """A boolean from JSON or the query string: true/false in any case, as Heat takes it."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise BadRequest(
        f'Unrecognized value "{value}" for "{name}", acceptable values are: true, false'
    )


def parse_count(name: str, value: Any, maximum: int) -> int:
    """A non-negative integer (a number or its digits), with Heat's messages."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise BadRequest(f"Only integer is acceptable by '{name}'.")
    try:
        number = int(value)
    except ValueError:
        raise BadRequest(f"Only integer is acceptable by '{name}'.") from None
    if number < 0:
        raise BadRequest(f"Only non-negative integer is acceptable by '{name}'.")
    if number > maximum:
        raise BadRequest(f"'{name}' must be at most {maximum}.")
    return number


class Query:
    """The query string of one request, with the keys a route accepts."""

    def __init__(self, req: falcon.Request, allowed: Collection[str] | None = None) -> None:
        self.params: Mapping[str, Any] = req.params
        if allowed is not None:
            unknown = sorted(set(self.params) - set(allowed))
            if unknown:
                raise BadRequest(f"Invalid query parameter(s): {', '.join(unknown)}")

    def __contains__(self, name: str) -> bool:
        return name in self.params

    def all(self, name: str) -> list[str]:
        value = self.params.get(name)
        if value is None:
            return []
        return [str(v) for v in value] if isinstance(value, list) else [str(value)]

    def one(self, name: str) -> str | None:
        values = self.all(name)
        return values[-1] if values else None

    def mixed(self, name: str) -> str | list[str] | None:
        """Heat's 'mixed' parameters: one value, or a list when repeated."""
        values = [v for v in self.all(name) if v]
        if not values:
            return None
        return values[0] if len(values) == 1 else values

    def boolean(self, name: str, default: bool = False) -> bool:
        value = self.one(name)
        return default if value is None else parse_bool(name, value)

    def integer(self, name: str, default: int | None = None) -> int | None:
        value = self.one(name)
        if value is None or value == "":
            return default
        # beyond MAX_QUERY_INTEGER the databases refuse it as a LIMIT
        return parse_count(name, value, MAX_QUERY_INTEGER)

    def tags(self, name: str) -> list[str] | None:
        value = self.one(name)
        if value is None:
            return None
        return [t for t in value.split(",") if t]
