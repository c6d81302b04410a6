"""Encryption at rest of hidden parameters, resource properties and credentials.

Values are JSON-serialised and sealed with AES-256-GCM-SIV (RFC 8452), an authenticated
cipher that stays safe when random nonces repeat (a repeat only shows that two values were
equal), so one key may seal any number of values. Its key is derived from
``auth_encryption_key`` with HKDF, so any configured string of sufficient length gives a
well-distributed key, and the derivation is tied to Hearth by its salt and info.

Earlier versions sealed with Fernet (AES-CBC plus HMAC-SHA256, its own HKDF-derived key):
such values are still read, told apart by their token (a new token starts with ``v2:``,
which base64 never does), and a row is sealed anew the next time it is written. The new
format costs about a quarter of Fernet's time per value, which counts where every resource
write seals its definition and attributes.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from hearth.common.errors import DecryptionFailed, EncryptionKeyMissing
from hearth.store.types import compact_json_dumps

MIN_KEY_LENGTH = 32
# What values are sealed with now, and what earlier versions sealed with (still read).
DECRYPT_METHOD = "aes-gcm-siv-hkdf-v2"
FERNET_METHOD = "fernet-hkdf-v1"
DECRYPT_METHODS = (DECRYPT_METHOD, FERNET_METHOD)

# Fixed, so that the same configured key always derives the same keys; each format has its
# own (its own info).
_HKDF_SALT = b"hearth.store.crypto"
_HKDF_INFO = b"hearth fernet-hkdf-v1"
_HKDF_INFO_V2 = b"hearth aes-gcm-siv-hkdf-v2"
_V2_PREFIX = "v2:"
_NONCE_BYTES = 12
# Bound to every v2 token, so that a token is only read as what it was sealed as.
_V2_AAD = b"hearth sealed value v2"


class Encryptor:
    """Encrypts and decrypts JSON-serialisable values with one derived key."""

    decrypt_method = DECRYPT_METHOD

    def __init__(self, fernet: Fernet, aead: AESGCMSIV) -> None:
        self._fernet = fernet
        self._aead = aead

    @classmethod
    def from_key(cls, key: str | None) -> Encryptor:
        """An Encryptor for the configured ``auth_encryption_key``."""
        if not key:
            raise EncryptionKeyMissing()
        if len(key) < MIN_KEY_LENGTH:
            raise EncryptionKeyMissing(
                f"is too short ({len(key)} characters, at least {MIN_KEY_LENGTH} are needed)"
            )
        secret = key.encode("utf-8")
        fernet_key = _derive(secret, _HKDF_INFO)
        return cls(Fernet(base64.urlsafe_b64encode(fernet_key)),
                   AESGCMSIV(_derive(secret, _HKDF_INFO_V2)))

    def encrypt(self, value: Any) -> str:
        plain = compact_json_dumps(value).encode("utf-8")
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, plain, _V2_AAD)
        return _V2_PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode("ascii")

    def decrypt(self, token: str) -> Any:
        try:
            if token.startswith(_V2_PREFIX):
                raw = base64.urlsafe_b64decode(token[len(_V2_PREFIX):])
                if len(raw) <= _NONCE_BYTES:
                    raise InvalidTag()
                plain = self._aead.decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], _V2_AAD)
            else:
                plain = self._fernet.decrypt(token.encode("ascii"))
        except (InvalidTag, InvalidToken, UnicodeEncodeError, binascii.Error,
                ValueError) as exc:
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


def _derive(secret: bytes, info: bytes) -> bytes:
    """A 256-bit key of ``secret`` for one purpose (``info``)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=_HKDF_SALT, info=info).derive(secret)
