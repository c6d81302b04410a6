"""Encryption at rest of hidden parameters, resource properties and credentials.

Values are JSON-serialised and sealed with Fernet (AES-CBC plus HMAC-SHA256). Its 256-bit key
is derived from ``auth_encryption_key`` with HKDF, so any configured string of sufficient length
gives a well-distributed key, and the derivation is tied to Hearth by its salt and info.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from hearth.common.errors import DecryptionFailed, EncryptionKeyMissing
from hearth.store.types import json_default

MIN_KEY_LENGTH = 32
DECRYPT_METHOD = "fernet-hkdf-v1"

# Fixed, so that the same configured key always derives the same Fernet key.
_HKDF_SALT = b"hearth.store.crypto"
_HKDF_INFO = b"hearth fernet-hkdf-v1"


class Encryptor:
    """Encrypts and decrypts JSON-serialisable values with one derived key."""

    decrypt_method = DECRYPT_METHOD

    def __init__(self, fernet: Fernet) -> None:
        self._fernet = fernet

    @classmethod
    def from_key(cls, key: str | None) -> Encryptor:
        """An Encryptor for the configured ``auth_encryption_key``."""
        if not key:
            raise EncryptionKeyMissing()
        if len(key) < MIN_KEY_LENGTH:
            raise EncryptionKeyMissing(
                f"is too short ({len(key)} characters, at least {MIN_KEY_LENGTH} are needed)"
            )
        derived = HKDF(
            algorithm=hashes.SHA256(), length=32, salt=_HKDF_SALT, info=_HKDF_INFO
        ).derive(key.encode("utf-8"))
        return cls(Fernet(base64.urlsafe_b64encode(derived)))

    def encrypt(self, value: Any) -> str:
        plain = json.dumps(value, separators=(",", ":"), default=json_default).encode("utf-8")
        return self._fernet.encrypt(plain).decode("ascii")

    def decrypt(self, token: str) -> Any:
        try:
            plain = self._fernet.decrypt(token.encode("ascii"))
        except (InvalidToken, UnicodeEncodeError) as exc:
            raise DecryptionFailed("wrong key or damaged value") from exc
        return json.loads(plain)

    def encrypt_mapping_values(
        self, data: Mapping[str, Any], keys: Iterable[str]
    ) -> dict[str, Any]:
        """A copy of ``data`` with the values of ``keys`` (those present) encrypted."""
        return self._map(data, keys, self.encrypt)

    def decrypt_mapping_values(
        self, data: Mapping[str, Any], keys: Iterable[str]
    ) -> dict[str, Any]:
        """A copy of ``data`` with the values of ``keys`` (those present) decrypted."""
        return self._map(data, keys, self.decrypt)

    @staticmethod
    def _map(
        data: Mapping[str, Any], keys: Iterable[str], fn: Callable[[Any], Any]
    ) -> dict[str, Any]:
        out = dict(data)
        for key in keys:
            if key in out:
                out[key] = fn(out[key])
        return out
