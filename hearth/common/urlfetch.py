"""Templates fetched by URL (``template_url``, provider templates, TemplateURL): http(s) only,
with a size limit and a total time budget, as Heat's urlfetch, and never from a private,
loopback, link-local or otherwise internal address unless an operator allows its network
(``[DEFAULT] template_fetch_allowed_networks``): a user's URL must not reach what only the
server can reach. Redirects are followed by hand so that every hop is checked; the errors
say what was refused, never what answered."""

from __future__ import annotations

import ipaddress
import logging
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import requests

LOG = logging.getLogger(__name__)

URL_SCHEMES = ("http", "https")
MAX_REDIRECTS = 5
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class FetchError(Exception):
    """The template could not be fetched; the message says why, in Heat's words."""


@dataclass(frozen=True)
class FetchPolicy:
    allowed_networks: tuple[IPNetwork, ...] = ()
    # Seconds for the whole fetch, redirects and all (a server that drips bytes included).
    timeout: float = 30.0


_policy = FetchPolicy()


def configure(allowed_networks: Sequence[str] = (), timeout: float = 30.0) -> None:
    """Set the process's fetch policy (from ``[DEFAULT] template_fetch_*`` at start-up)."""
    global _policy
    _policy = FetchPolicy(tuple(ipaddress.ip_network(n, strict=False) for n in allowed_networks),
                          float(timeout))


def is_url(name: str) -> bool:
    return name.split(":", 1)[0].lower() in URL_SCHEMES if ":" in name else False


def _internal(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (address.is_private or address.is_loopback or address.is_link_local
            or address.is_multicast or address.is_reserved or address.is_unspecified)


def _checked_address(url: str, policy: FetchPolicy) -> str:
    """The address to connect to for ``url``'s host, once every address it has is allowed."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, ValueError):
        raise FetchError(f"Could not retrieve template: Invalid Template URL {url}") from None
    addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
    for address in addresses:
        if _internal(address) and not any(address in net for net in policy.allowed_networks):
            raise FetchError(
                f"Could not retrieve template: {url} is at an address templates may not be "
                "fetched from (private, loopback, link-local or reserved); an operator may "
                "allow its network in [DEFAULT] template_fetch_allowed_networks"
            )
    return str(addresses[0])


def _pinned(url: str, address: str) -> tuple[str, dict[str, str]]:
    """For http, the URL with the checked address in place of the name (so that a second DNS
    answer cannot point elsewhere) and the Host header; https keeps the name for TLS."""
    parts = urlsplit(url)
    if parts.scheme != "http":
        return url, {}
    host = f"[{address}]" if ":" in address else address
    netloc = f"{host}:{parts.port}" if parts.port else host
    return parts._replace(netloc=netloc).geturl(), {"Host": parts.netloc}


def fetch_template(url: str, max_size: int) -> str:
    """The text at ``url``: http(s) only, at most ``max_size`` bytes, within the time budget."""
    policy = _policy
    deadline = time.monotonic() + policy.timeout
    for _hop in range(MAX_REDIRECTS + 1):
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme not in URL_SCHEMES:
            raise FetchError(f"Could not retrieve template: Invalid URL scheme {scheme or url}")
        target, headers = _pinned(url, _checked_address(url, policy))
        try:
            with requests.get(target, headers=headers, stream=True, allow_redirects=False,
                              timeout=max(0.1, deadline - time.monotonic())) as resp:
                if resp.is_redirect:
                    url = urljoin(url, resp.headers.get("Location", ""))
                    continue
                if resp.status_code >= 400:
                    raise FetchError(f"Could not retrieve template: Failed to retrieve "
                                     f"template: {resp.status_code} from {url}")
                return _read(resp, max_size, deadline, url)
        except requests.RequestException as exc:
            LOG.info("Fetching %s failed: %s", url, exc)
            raise FetchError(
                f"Could not retrieve template: Failed to retrieve template from {url}"
            ) from None
    raise FetchError(f"Could not retrieve template: more than {MAX_REDIRECTS} redirects")


def _read(resp: requests.Response, max_size: int, deadline: float, url: str) -> str:
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise FetchError(f"Could not retrieve template: {url} took longer than "
                             f"{_policy.timeout:g}s")
        # read1: what one read brings, so the deadline is checked however slowly it drips.
        chunk = resp.raw.read1(65536, decode_content=True)
        if not chunk:
            break
        size += len(chunk)
        if size > max_size:
            raise FetchError(
                f"Could not retrieve template: Template exceeds maximum allowed size "
                f"({max_size} bytes)"
            )
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")
