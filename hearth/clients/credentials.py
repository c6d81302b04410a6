"""Whose credentials reach the cloud, and the keystoneauth session for each kind.

* ``ConfiguredCloud``: a cloud of openstacksdk's ``clouds.yaml`` (embedded mode).
* ``TrustCredentials``: Hearth's service user (``[trustee]``) acting through a stack's trust,
  as Heat's ``deferred_auth_method = trusts`` does: works after the user's token expired.
* ``TokenCredentials``: the caller's own token, for the request that carries it (validation,
  and making the trust).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hearth.clients.settings import ClientSettings, TLSOptions

if TYPE_CHECKING:
    from keystoneauth1.session import Session


class NoCloudConfigured(Exception):
    """No credentials for other services (noauth without ``[clients] cloud``)."""


@dataclass(frozen=True)
class ConfiguredCloud:
    name: str

    @property
    def key(self) -> str:
        return f"cloud:{self.name}"


@dataclass(frozen=True)
class TrustCredentials:
    trust_id: str
    # The user who made the trust (shown, never used to authenticate).
    trustor_user_id: str | None = None

    @property
    def key(self) -> str:
        return f"trust:{self.trust_id}"


@dataclass(frozen=True)
class TokenCredentials:
    token: str = field(repr=False)
    project_id: str
    auth_url: str

    @property
    def key(self) -> str:
        # Never the token itself: keys show up in logs and reprs.
        import hashlib

        return f"token:{hashlib.sha256(self.token.encode()).hexdigest()[:24]}"


Credentials = ConfiguredCloud | TrustCredentials | TokenCredentials


def _verify(tls: TLSOptions) -> bool | str:
    if tls.insecure:
        return False
    return tls.ca_file or True


def _cert(tls: TLSOptions) -> str | tuple[str, str] | None:
    if tls.cert_file and tls.key_file:
        return (tls.cert_file, tls.key_file)
    return tls.cert_file


def make_session(settings: ClientSettings, creds: Credentials) -> Session:
    """A keystoneauth session for these credentials (no network traffic yet)."""
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3

    tls = settings.service("identity").tls
    if isinstance(creds, ConfiguredCloud):
        found: Session = cloud_region(settings, creds.name).get_session()
        return found
    if isinstance(creds, TrustCredentials):
        trustee = settings.trustee
        if trustee is None:
            raise NoCloudConfigured(
                "Stack actions authenticate through a Keystone trust, but [trustee] "
                "(auth_url, username, password) is not configured"
            )
        auth: v3.Password | v3.Token = v3.Password(
            auth_url=trustee.auth_url, username=trustee.username,
            password=trustee.password, user_domain_name=trustee.user_domain_name,
            trust_id=creds.trust_id,
        )
    else:
        auth = v3.Token(auth_url=creds.auth_url, token=creds.token,
                        project_id=creds.project_id)
    return ks_session.Session(auth=auth, verify=_verify(tls), cert=_cert(tls))


def trustee_session(settings: ClientSettings) -> Session:
    """Hearth's service user, unscoped by any trust (to learn its own user id)."""
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3

    trustee = settings.trustee
    if trustee is None:
        raise NoCloudConfigured("[trustee] (auth_url, username, password) is not configured")
    auth = v3.Password(
        auth_url=trustee.auth_url, username=trustee.username, password=trustee.password,
        user_domain_name=trustee.user_domain_name,
    )
    tls = settings.service("identity").tls
    return ks_session.Session(auth=auth, verify=_verify(tls), cert=_cert(tls))


def cloud_region(settings: ClientSettings, name: str):  # type: ignore[no-untyped-def]
    """openstacksdk's CloudRegion for a clouds.yaml cloud (with Hearth's retry options)."""
    from openstack import config as sdk_config

    from hearth.clients.cloud import connection_options

    files = [settings.clouds_file] if settings.clouds_file else None
    loader = sdk_config.OpenStackConfig(config_files=files, load_envvars=False)
    try:
        return loader.get_one(cloud=name, **connection_options(settings))
    except Exception as exc:
        where = settings.clouds_file or "clouds.yaml"
        raise NoCloudConfigured(f"Cloud {name!r} of {where}: {exc}") from exc
