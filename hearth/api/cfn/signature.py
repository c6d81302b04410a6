"""Who signed a CFN request: the EC2 signature (Signature Version 2 in the query, or 4 in the
``Authorization`` header or the query) checked against Keystone's ``/v3/ec2tokens``, as Heat's
ec2token middleware does, or, without Keystone, against the EC2 keypairs configured in
``[cfn_api] ec2_credentials`` with the same algorithm Keystone uses."""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from keystoneclient.contrib.ec2.utils import Ec2Signer  # type: ignore[import-untyped]

from hearth.api.cfn.errors import (
    ACCESS_DENIED,
    INCOMPLETE_SIGNATURE,
    INVALID_CLIENT_TOKEN_ID,
    MISSING_AUTHENTICATION_TOKEN,
    REQUEST_EXPIRED,
    SERVICE_UNAVAILABLE,
    SIGNATURE_DOES_NOT_MATCH,
    CfnError,
)
from hearth.common.context import RequestContext

LOG = logging.getLogger(__name__)

# How long a signed request stays good after its timestamp (Keystone's default auth_ttl).
SIGNATURE_TTL = timedelta(minutes=15)
_TIMESTAMP_FORMATS = ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S.%fZ", "%Y%m%dT%H%M%SZ")


@dataclass(frozen=True)
class SignedRequest:
    """What a signature covers, in the shape Keystone's ec2tokens takes."""

    access: str
    signature: str
    host: str
    verb: str
    path: str
    params: Mapping[str, str]
    headers: Mapping[str, str] = field(default_factory=dict)
    body_hash: str = ""

    def credentials(self) -> dict[str, Any]:
        return {
            "access": self.access, "signature": self.signature, "host": self.host,
            "verb": self.verb, "path": self.path, "params": dict(self.params),
            "headers": dict(self.headers), "body_hash": self.body_hash,
        }


def _after(text: str, marker: str) -> str | None:
    if marker not in text:
        return None
    return text.split(marker, 1)[1].split(",", 1)[0].strip()


def read_signature(
    *, verb: str, host: str, path: str, params: Mapping[str, str],
    headers: Mapping[str, str], body: bytes,
) -> SignedRequest:
    """The signature and access key of a request, or the AWS error for their absence."""
    authorization = headers.get("Authorization", "")
    signature = (params.get("Signature") or params.get("X-Amz-Signature")
                 or _after(authorization, "Signature="))
    if not signature:
        raise CfnError(INCOMPLETE_SIGNATURE, "The request has no signature")
    access = params.get("AWSAccessKeyId")
    if not access:
        credential = params.get("X-Amz-Credential") or _after(authorization, "Credential=")
        access = credential.split("/", 1)[0] if credential else None
    if not access:
        raise CfnError(MISSING_AUTHENTICATION_TOKEN, "The request names no access key")
    signed_params = {k: v for k, v in params.items() if k != "Signature"}
    return SignedRequest(
        access=access, signature=signature, host=host, verb=verb, path=path,
        params=signed_params, headers=dict(headers),
        body_hash=hashlib.sha256(body).hexdigest(),
    )


class SignatureChecker(Protocol):
    def context(self, request: SignedRequest, request_id: str) -> RequestContext:
        """The caller the signature proves, or a CfnError."""
        ...


def _timestamp(request: SignedRequest) -> datetime | None:
    text = (request.params.get("Timestamp") or request.headers.get("X-Amz-Date")
            or request.params.get("X-Amz-Date"))
    if not text:
        return None
    for fmt in _TIMESTAMP_FORMATS:
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise CfnError(REQUEST_EXPIRED, f"Timestamp {text!r} is not understood")


@dataclass(frozen=True)
class LocalKeypair:
    secret: str
    project_id: str


class LocalChecker:
    """Keypairs from the configuration (noauth mode): ``ACCESS:SECRET:PROJECT`` entries."""

    def __init__(self, entries: Sequence[str], user: str, roles: Sequence[str]) -> None:
        self.keypairs: dict[str, LocalKeypair] = {}
        for entry in entries:
            access, secret, project = [*entry.split(":", 2), "", ""][:3]
            if access and secret and project:
                self.keypairs[access] = LocalKeypair(secret, project)
            else:
                LOG.warning("[cfn_api] ec2_credentials entry for %r is not "
                            "ACCESS:SECRET:PROJECT; it is ignored", access)
        self.user = user
        self.roles = tuple(roles)

    def context(self, request: SignedRequest, request_id: str) -> RequestContext:
        keypair = self.keypairs.get(request.access)
        if keypair is None:
            raise CfnError(INVALID_CLIENT_TOKEN_ID)
        expected = Ec2Signer(keypair.secret).generate(request.credentials())
        if not hmac.compare_digest(str(expected), request.signature):
            # Keystone tries again without the port, as a proxy may have dropped it.
            host = request.host.rsplit(":", 1)[0] if ":" in request.host else None
            retry = None if host is None else Ec2Signer(keypair.secret).generate(
                {**request.credentials(), "host": host})
            if retry is None or not hmac.compare_digest(str(retry), request.signature):
                raise CfnError(SIGNATURE_DOES_NOT_MATCH)
        _check_age(request)
        return RequestContext(project_id=keypair.project_id, user_id=self.user,
                              username=self.user, roles=self.roles, request_id=request_id,
                              ec2_access_key=request.access)


class KeystoneChecker:
    """Keystone checks the signature against the EC2 credential and answers a token.

    Keystone takes ec2tokens requests only from an authenticated caller: Hearth's service
    user (``[trustee]``), as Heat's ec2token middleware uses Heat's."""

    def __init__(self, keystone_v3_url: str, session: Any, timeout: float = 30.0) -> None:
        self.url = f"{keystone_v3_url.rstrip('/')}/ec2tokens"
        self.session = session
        self.timeout = timeout

    def context(self, request: SignedRequest, request_id: str) -> RequestContext:
        _check_age(request)
        try:
            resp = self.session.post(self.url, json={"ec2Credentials": request.credentials()},
                                     timeout=self.timeout, raise_exc=False)
        except Exception as exc:  # keystoneauth's connection and auth failures alike
            LOG.warning("Keystone's ec2tokens at %s did not answer: %s", self.url, exc)
            raise CfnError(SERVICE_UNAVAILABLE, "Keystone did not answer") from None
        if resp.status_code >= 400:
            raise _keystone_refusal(resp)
        try:
            token = resp.json()["token"]
            project = token["project"]
            user = token["user"]
        except (ValueError, KeyError, TypeError):
            raise CfnError(ACCESS_DENIED, "Keystone's answer holds no project token") from None
        return RequestContext(
            project_id=str(project["id"]), user_id=str(user["id"]),
            username=str(user.get("name", "")),
            roles=tuple(str(r["name"]) for r in token.get("roles", [])),
            auth_token=resp.headers.get("X-Subject-Token"), request_id=request_id,
            ec2_access_key=request.access,
        )


class Unconfigured:
    """No way to check signatures is configured: every request is told what is missing."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def context(self, request: SignedRequest, request_id: str) -> RequestContext:
        raise CfnError(SERVICE_UNAVAILABLE, self.reason)


def _check_age(request: SignedRequest) -> None:
    """Refuse a request signed too long ago (Keystone refuses it too, but says only 401)."""
    stamp = _timestamp(request)
    if stamp is not None and datetime.now(UTC) > stamp + SIGNATURE_TTL:
        raise CfnError(REQUEST_EXPIRED)


def _keystone_refusal(resp: Any) -> CfnError:
    try:
        message = str(resp.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        message = resp.text[:200]
    lowered = message.lower()
    if resp.status_code == 404 or "access key not found" in lowered:
        return CfnError(INVALID_CLIENT_TOKEN_ID)
    if "expired" in lowered or "timestamp" in lowered:
        return CfnError(REQUEST_EXPIRED)
    if resp.status_code == 401 or "signature" in lowered:
        # Keystone's 401 is the signature (the age was checked before asking).
        return CfnError(SIGNATURE_DOES_NOT_MATCH)
    if resp.status_code >= 500:
        LOG.warning("Keystone's ec2tokens failed (%s): %s", resp.status_code, message)
        return CfnError(SERVICE_UNAVAILABLE, "Keystone could not check the signature")
    return CfnError(ACCESS_DENIED)
