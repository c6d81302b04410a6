"""Named custom constraints (``custom_constraint: ip_addr``) and the registry that holds them.

A checker is a callable ``checker(value, context) -> str | None``: ``None`` when the value is
acceptable, otherwise the reason it is not (``""`` when there is nothing more to say than that
the value failed). ``context`` is whatever the caller validating the value passes along (the
request context for service-backed checkers); the built-in checkers here ignore it.

Only checkers that need no other service are built in. Other layers add theirs with
``register_constraint``. The names Heat resolves through an OpenStack service (``nova.flavor``,
``glance.image``, ...) are known here so that a template using one fails with a clear
"not available in Hearth yet" rather than "constraint not found".
"""

from __future__ import annotations

import datetime
import json
import re
import time
import zoneinfo
from collections.abc import Callable, Iterator
from typing import Any

import croniter
import iso8601
import netaddr

Checker = Callable[[Any, Any], "str | None"]


class ConstraintRegistry:
    """A name -> checker mapping; a child registry sees its parent's entries too."""

    def __init__(self, parent: ConstraintRegistry | None = None) -> None:
        self._parent = parent
        self._checkers: dict[str, Checker] = {}

    def register(self, name: str, checker: Checker) -> None:
        self._checkers[name] = checker

    def unregister(self, name: str) -> None:
        self._checkers.pop(name, None)

    def get(self, name: Any) -> Checker | None:
        if isinstance(name, str):
            found = self._checkers.get(name)
            if found is not None:
                return found
        if self._parent is not None:
            return self._parent.get(name)
        return None

    def __contains__(self, name: object) -> bool:
        return self.get(name) is not None

    def names(self) -> list[str]:
        seen = set(self._parent.names()) if self._parent is not None else set()
        seen.update(self._checkers)
        return sorted(seen)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def child(self) -> ConstraintRegistry:
        return ConstraintRegistry(self)


# Names Heat 27 registers that are backed by another OpenStack service.
SERVICE_CONSTRAINTS: frozenset[str] = frozenset(
    {
        "barbican.container",
        "barbican.secret",
        "blazar.reservation",
        "cinder.backup",
        "cinder.qos_specs",
        "cinder.snapshot",
        "cinder.volume",
        "cinder.vtype",
        "designate.zone",
        "glance.image",
        "ironic.node",
        "ironic.portgroup",
        "keystone.domain",
        "keystone.group",
        "keystone.project",
        "keystone.region",
        "keystone.role",
        "keystone.service",
        "keystone.user",
        "magnum.cluster_template",
        "manila.share_network",
        "manila.share_snapshot",
        "manila.share_type",
        "mistral.workflow",
        "neutron.address_scope",
        "neutron.flow_classifier",
        "neutron.lbaas.listener",
        "neutron.lbaas.loadbalancer",
        "neutron.lbaas.pool",
        "neutron.lbaas.provider",
        "neutron.network",
        "neutron.port",
        "neutron.port_pair",
        "neutron.port_pair_group",
        "neutron.qos_policy",
        "neutron.router",
        "neutron.security_group",
        "neutron.segment",
        "neutron.subnet",
        "neutron.subnetpool",
        "neutron.taas.tap_flow",
        "neutron.taas.tap_service",
        "nova.flavor",
        "nova.host",
        "nova.keypair",
        "nova.network",
        "nova.server",
        "octavia.availabilityzone",
        "octavia.availabilityzoneprofile",
        "octavia.flavor",
        "octavia.flavorprofile",
        "octavia.l7policy",
        "octavia.listener",
        "octavia.loadbalancer",
        "octavia.pool",
        "trove.flavor",
        "zaqar.queue",
    }
)


def is_service_constraint(name: Any) -> bool:
    return isinstance(name, str) and name in SERVICE_CONSTRAINTS


# --- network helpers (the rules neutron-lib applies, which Heat relies on) -----------------

_WHITESPACE = re.compile(r"\s")


def _no_whitespace(data: str) -> str:
    if _WHITESPACE.search(data):
        raise ValueError(f"'{data}' contains whitespace")
    return data


def ip_address_problem(data: Any) -> str | None:
    """Why ``data`` is not an IP address Heat accepts, or None when it is one."""
    try:
        text = _no_whitespace(data)
        try:
            # Leading zeros are tolerated by the parser (IPv4 only), then refused below.
            ip = netaddr.IPAddress(text, flags=netaddr.ZEROFILL)
        except ValueError:
            ip = netaddr.IPAddress(text)
        if ":" not in text and text.count(".") != 3:
            return f"'{data}' is not a valid IP address"
        if ip.version == 4 and str(ip) != text:
            return f"'{data}' is not an accepted IP address, '{ip}' is recommended"
    except Exception:
        return f"'{data}' is not a valid IP address"
    return None


def subnet_problem(data: Any) -> str | None:
    """Why ``data`` is not an IP subnet in canonical CIDR form, or None when it is one."""
    try:
        net = netaddr.IPNetwork(_no_whitespace(data))
        if "/" not in data or (net.version == 4 and str(net) != data):
            raise ValueError(data)
    except Exception:
        return f"'{data}' is not a valid IP subnet"
    return None


# --- DNS -------------------------------------------------------------------------------

FQDN_MAX_LEN = 255
DNS_LABEL_MAX_LEN = 63
_DNS_LABEL = re.compile(f"[a-z0-9-]{{1,{DNS_LABEL_MAX_LEN}}}$")
_ALL_DIGITS = re.compile(r"^[0-9]+$")


def dns_format_problem(data: str) -> str | None:
    if not data:
        return None
    trimmed = data[:-1] if data.endswith(".") else data
    if len(trimmed) > FQDN_MAX_LEN:
        return f"'{trimmed}' exceeds the {FQDN_MAX_LEN} character FQDN limit"
    labels = trimmed.split(".")
    for label in labels:
        if not label:
            return "Encountered an empty component."
        if label.startswith("-") or label.endswith("-"):
            return f"Name '{label}' must not start or end with a hyphen."
        if not _DNS_LABEL.match(label):
            return (
                f"Name '{label}' must be 1-{DNS_LABEL_MAX_LEN} characters long, each of which "
                "can only be alphanumeric or a hyphen."
            )
    # A top-level domain may not be all digits (only checked for a fully qualified name).
    if data.endswith(".") and len(labels) > 1 and _ALL_DIGITS.match(labels[-1]):
        return f"TLD '{labels[-1]}' must not be all numeric."
    return None


def _not_a_string(value: Any) -> str:
    return f"'{value}' not in valid format. Reason: a string is required."


def check_dns_name(value: Any, context: Any = None) -> str | None:
    if not isinstance(value, str):
        return None if not value else _not_a_string(value)
    reason = dns_format_problem(value)
    if reason is not None:
        return f"'{value}' not in valid format. Reason: {reason}"
    return None


def check_rel_dns_name(value: Any, context: Any = None) -> str | None:
    if not value:
        return None
    if not isinstance(value, str):
        return _not_a_string(value)
    if value.endswith("."):
        return f"'{value}' is a FQDN. It should be a relative domain name."
    if len(value) > FQDN_MAX_LEN - 3:
        return (
            f"'{value}' contains '{len(value)}' characters. Adding a domain name will cause it "
            f"to exceed the maximum length of a FQDN of '{FQDN_MAX_LEN}'."
        )
    return check_dns_name(value, context)


def check_dns_domain(value: Any, context: Any = None) -> str | None:
    if not value:
        return None
    reason = check_dns_name(value, context)
    if reason is not None:
        return reason
    if not value.endswith("."):
        return f"'{value}' must end with '.'."
    return None


# --- addresses -------------------------------------------------------------------------


def check_ip_addr(value: Any, context: Any = None) -> str | None:
    if not isinstance(value, str) or ip_address_problem(value) is not None:
        return "Invalid IP address"
    return None


def check_mac_addr(value: Any, context: Any = None) -> str | None:
    try:
        valid = bool(netaddr.valid_mac(value))
    except Exception:
        valid = False
    return None if valid else "Invalid MAC address."


def check_net_cidr(value: Any, context: Any = None) -> str | None:
    try:
        netaddr.IPNetwork(netaddr.cidr_abbrev_to_verbose(value))
    except Exception as exc:
        return f"Invalid net cidr {exc} "
    return subnet_problem(value)


def check_ip_or_cidr(value: Any, context: Any = None) -> str | None:
    try:
        if "/" in value:
            return subnet_problem(value)
        return ip_address_problem(value)
    except Exception:
        return f"{value} is not a valid IP or CIDR"


# --- time ------------------------------------------------------------------------------


def _parse_iso8601(text: Any) -> datetime.datetime:
    # Without a zone designator a time is taken as UTC, as Heat (oslo.utils) takes it.
    parsed: datetime.datetime = iso8601.parse_date(text)
    return parsed


def check_iso_8601(value: Any, context: Any = None) -> str | None:
    try:
        _parse_iso8601(value)
    except Exception:
        return ""
    return None


def check_expiration(value: Any, context: Any = None) -> str | None:
    if not value:
        return None
    try:
        moment = _parse_iso8601(value.strip())
        offset = moment.utcoffset()
        naive_utc = moment.replace(tzinfo=None) - offset if offset is not None else moment
        now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        if naive_utc > now:
            return None
        raise ValueError("Expiration time is out of date.")
    except Exception as exc:
        return f"Expiration {value} is invalid: {exc}"


def check_cron_expression(value: Any, context: Any = None) -> str | None:
    if not value:
        return None
    try:
        croniter.croniter(value)
    except Exception as exc:
        return f"Invalid CRON expression: {exc}"
    return None


def check_timezone(value: Any, context: Any = None) -> str | None:
    if not value:
        return None
    try:
        zoneinfo.ZoneInfo(value)
    except Exception as exc:
        return f"Invalid timezone: {exc}"
    return None


# --- other -----------------------------------------------------------------------------


def check_json_string(value: Any, context: Any = None) -> str | None:
    if not value:
        return None
    try:
        json.loads(value)
    except (ValueError, TypeError) as exc:
        return f"JSON string {value} is invalid: {exc}"
    return None


def check_test_constr(value: Any, context: Any = None) -> str | None:
    """Heat's test hook: accepts any number, after sleeping that many seconds."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return f"{value} is not a number of seconds"
    # A negative number fails with Python's own "sleep length must be non-negative", as in Heat.
    time.sleep(seconds)
    return None


BUILTIN_CHECKERS: dict[str, Checker] = {
    "cron_expression": check_cron_expression,
    "dns_domain": check_dns_domain,
    "dns_name": check_dns_name,
    "expiration": check_expiration,
    "ip_addr": check_ip_addr,
    "ip_or_cidr": check_ip_or_cidr,
    "iso_8601": check_iso_8601,
    "json_string": check_json_string,
    "mac_addr": check_mac_addr,
    "net_cidr": check_net_cidr,
    "rel_dns_name": check_rel_dns_name,
    "test_constr": check_test_constr,
    "timezone": check_timezone,
}

_GLOBAL = ConstraintRegistry()
for _name, _checker in BUILTIN_CHECKERS.items():
    _GLOBAL.register(_name, _checker)


def global_registry() -> ConstraintRegistry:
    """The process-wide registry: the built-ins plus whatever other layers registered."""
    return _GLOBAL


def register_constraint(name: str, checker: Checker) -> None:
    _GLOBAL.register(name, checker)


def get_constraint(name: Any) -> Checker | None:
    return _GLOBAL.get(name)
