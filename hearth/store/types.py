"""Column types that behave the same on SQLite, PostgreSQL and MariaDB/MySQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Dialect, String, Text
from sqlalchemy.dialects import mysql
from sqlalchemy.types import TypeDecorator, TypeEngine

_MYSQL = ("mysql", "mariadb")


def json_default(value: Any) -> Any:
    """``json.dumps``'s ``default``: a set (a yaql result may be one) is stored as a list,
    as Heat's JSON encoder stores it."""
    if isinstance(value, set | frozenset):
        try:
            return sorted(value)  # the same text every time for the same set
        except TypeError:
            return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# One encoder for every call: ``json.dumps`` with a ``default`` builds a new one each time,
# which cost more than encoding a resource's small documents (each call keeps its own state).
_ENCODER = json.JSONEncoder(default=json_default)
_COMPACT_ENCODER = json.JSONEncoder(default=json_default, separators=(",", ":"))
_STRICT_ENCODER = json.JSONEncoder(default=json_default, allow_nan=False)


def json_dumps(value: Any) -> str:
    """The JSON text of a stored document (the engines' serializer too)."""
    return _ENCODER.encode(value)


def compact_json_dumps(value: Any) -> str:
    """``json_dumps`` without spaces after separators (sealed values)."""
    return _COMPACT_ENCODER.encode(value)


def strict_json_dumps(value: Any) -> str:
    """``json_dumps`` that refuses NaN and infinities (what PostgreSQL's JSON refuses)."""
    return _STRICT_ENCODER.encode(value)


def as_stored(value: Any) -> Any:
    """``value`` as a read of it gives it back once stored (keys strings, tuples lists)."""
    return json.loads(json_dumps(value))


def utcnow() -> datetime:
    """Naive UTC, as every timestamp column stores it."""
    return datetime.now(UTC).replace(tzinfo=None)


class Json(TypeDecorator[Any]):
    """A JSON document; Python ``None`` is SQL NULL.

    MariaDB's JSON is LONGTEXT plus a ``json_valid`` check that reflects back as plain LONGTEXT,
    so there it is stored as LONGTEXT (4 GiB) and serialised here; elsewhere the native JSON.
    """

    impl = JSON
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name in _MYSQL:
            return dialect.type_descriptor(mysql.LONGTEXT())
        return dialect.type_descriptor(JSON(none_as_null=True))

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if dialect.name in _MYSQL and value is not None:
            return json_dumps(value)
        return value

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        if dialect.name in _MYSQL and value is not None:
            return json.loads(value)
        return value


class TruncatedString(TypeDecorator[str]):
    """A bounded string that cuts longer values instead of failing (status reasons)."""

    impl = String
    cache_ok = True

    def __init__(self, length: int) -> None:
        super().__init__(length)
        self.length = length

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        if value is not None and len(value) > self.length:
            return value[: self.length]
        return value


# MariaDB's TEXT holds only 64 KiB; encrypted values and reasons can be longer.
LongText = Text().with_variant(mysql.LONGTEXT(), *_MYSQL)

# MariaDB's DATETIME drops fractions of a second unless asked for them.
Timestamp = DateTime().with_variant(mysql.DATETIME(fsp=6), *_MYSQL)
