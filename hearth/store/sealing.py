"""Resolved values encrypted at rest, in the columns that hold them.

Attribute caches, outputs, metadata, snapshots, software configs and deployments hold values
resolved from templates, so any of them may hold a hidden parameter, something made from one
(a ``str_replace`` into a script) or a credential (a signed URL with its secret). Columns of
the ``SealedJson`` type store every value as a sealed document, ``{"$sealed": method,
"token": ...}``, encrypted with the key of the engine that owns the database connection.
Plain values, as older versions wrote them, are read as they are: no migration is needed, and
a row is sealed the next time it is written.

The key belongs to the connection (one ``Database`` per engine) rather than to the process,
so that engines with different keys can share a process (tests, a key check at start-up).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from sqlalchemy import Dialect
from sqlalchemy.types import TypeDecorator

from hearth.common.errors import DecryptionFailed
from hearth.store.crypto import Encryptor
from hearth.store.types import Json

SEALED_KEY = "$sealed"
TOKEN_KEY = "token"

EncryptorSource = Callable[[], Encryptor | None]

# Each connection's (SQLAlchemy dialect's) source of its encryptor; None: encryption is off.
_SOURCES: weakref.WeakKeyDictionary[Dialect, EncryptorSource] = weakref.WeakKeyDictionary()


def use_encryptor(dialect: Dialect, source: EncryptorSource) -> None:
    """Seal the values this connection writes with ``source()`` (asked at each use, so that
    a missing key is reported where a value is sealed, not when the engine starts)."""
    _SOURCES[dialect] = source


def is_sealed(value: Any) -> bool:
    return isinstance(value, dict) and value.keys() == {SEALED_KEY, TOKEN_KEY}


def seal(value: Any, encryptor: Encryptor | None) -> Any:
    """``value`` as a sealed document (as it is when there is no encryptor, or it is None)."""
    if value is None or encryptor is None or is_sealed(value):
        return value
    return {SEALED_KEY: encryptor.decrypt_method, TOKEN_KEY: encryptor.encrypt(value)}


def unseal(value: Any, encryptor: Encryptor | None) -> Any:
    """The value inside a sealed document; any other value as it is."""
    if not is_sealed(value):
        return value
    if encryptor is None:
        raise DecryptionFailed(
            "the value is encrypted, but encryption is switched off "
            "(encrypt_parameters_and_properties)"
        )
    return encryptor.decrypt(value[TOKEN_KEY])


def unseal_tree(value: Any, encryptor: Encryptor | None) -> Any:
    """``value`` with every sealed document inside it (at any depth) unsealed."""
    if is_sealed(value):
        return unseal(value, encryptor)
    if isinstance(value, dict):
        return {k: unseal_tree(v, encryptor) for k, v in value.items()}
    if isinstance(value, list):
        return [unseal_tree(v, encryptor) for v in value]
    return value


def _encryptor(dialect: Dialect) -> Encryptor | None:
    source = _SOURCES.get(dialect)
    return None if source is None else source()


class SealedJson(TypeDecorator[Any]):
    """A JSON document stored sealed with the connection's key (see the module's doc)."""

    impl = Json
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        return seal(value, _encryptor(dialect))

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        if not is_sealed(value) or dialect not in _SOURCES:
            # A connection no engine owns (migrations, maintenance) reads rows as stored.
            return value
        return unseal(value, _encryptor(dialect))
