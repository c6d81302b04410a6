"""Encryption at rest: values round-trip, and key problems say which option to fix."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from hearth.common.errors import DecryptionFailed, EncryptionKeyMissing
from hearth.store.crypto import Encryptor

KEY = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    "value", ["s3cret", "", 42, 1.5, True, None, ["a", {"b": [1, 2]}], {"pw": "ünï✓"}]
)
def test_values_round_trip(value: Any) -> None:
    token = Encryptor.from_key(KEY).encrypt(value)
    assert isinstance(token, str)
    # A second Encryptor from the same configured key (another process) reads it.
    assert Encryptor.from_key(KEY).decrypt(token) == value


def test_token_hides_the_value_and_differs_each_time() -> None:
    encryptor = Encryptor.from_key(KEY)
    first, second = encryptor.encrypt("s3cret-password"), encryptor.encrypt("s3cret-password")
    assert "s3cret" not in first
    assert first != second
    assert Encryptor.decrypt_method == "aes-gcm-siv-hkdf-v2"
    assert first.startswith("v2:")


def fernet_token_of_an_earlier_version(key: str, value: Any) -> str:
    """What Hearth sealed before AES-GCM-SIV: Fernet with a key derived by HKDF (its salt
    and info as they were)."""
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"hearth.store.crypto",
                   info=b"hearth fernet-hkdf-v1").derive(key.encode("utf-8"))
    fernet = Fernet(base64.urlsafe_b64encode(derived))
    return fernet.encrypt(json.dumps(value).encode("utf-8")).decode("ascii")


def test_values_sealed_by_an_earlier_version_are_still_read() -> None:
    token = fernet_token_of_an_earlier_version(KEY, {"pw": "s3cret"})
    assert Encryptor.from_key(KEY).decrypt(token) == {"pw": "s3cret"}
    with pytest.raises(DecryptionFailed):
        Encryptor.from_key("another key that is long enough!!").decrypt(token)


@pytest.mark.parametrize("damage", [
    lambda t: t[:-4] + ("AAAA" if not t.endswith("AAAA") else "BBBB"),  # the tag no longer fits
    lambda t: t[:10],  # cut short
    lambda t: "v2:",  # nothing sealed
    lambda t: "v2:not base64 ✓",
    lambda t: "v2:" + base64.urlsafe_b64encode(b"x" * 40).decode(),  # not sealed here
])
def test_a_damaged_new_token_fails_clearly(damage: Any) -> None:
    token = Encryptor.from_key(KEY).encrypt({"pw": "s3cret"})
    with pytest.raises(DecryptionFailed, match="wrong key or damaged value"):
        Encryptor.from_key(KEY).decrypt(damage(token))


def test_wrong_key_names_the_option() -> None:
    token = Encryptor.from_key(KEY).encrypt("v")
    with pytest.raises(DecryptionFailed, match=r"auth_encryption_key in \[DEFAULT\]") as info:
        Encryptor.from_key("another key that is long enough!!").decrypt(token)
    assert info.value.http_status == 500


def test_damaged_token_fails_clearly() -> None:
    with pytest.raises(DecryptionFailed):
        Encryptor.from_key(KEY).decrypt("not a token ✓")


@pytest.mark.parametrize("key", [None, ""])
def test_missing_key_says_how_to_fix_it(key: str | None) -> None:
    with pytest.raises(EncryptionKeyMissing) as info:
        Encryptor.from_key(key)
    assert str(info.value) == (
        "auth_encryption_key is not set in [DEFAULT] of the Hearth config; it is needed to "
        "encrypt hidden parameters and resource properties (set it, or set "
        "encrypt_parameters_and_properties = false)"
    )
    assert info.value.http_status == 500


def test_short_key_is_refused() -> None:
    with pytest.raises(EncryptionKeyMissing, match="too short .16 characters, at least 32"):
        Encryptor.from_key("x" * 16)


def test_mapping_helpers_touch_only_the_named_keys() -> None:
    encryptor = Encryptor.from_key(KEY)
    params = {"user": "admin", "password": "pw", "token": ["t"]}
    sealed = encryptor.encrypt_mapping_values(params, ["password", "token", "absent"])
    assert sealed["user"] == "admin"
    assert sealed["password"] != "pw" and isinstance(sealed["token"], str)
    assert params["password"] == "pw"  # the input is not changed
    assert encryptor.decrypt_mapping_values(sealed, ["password", "token"]) == params
