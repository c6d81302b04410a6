"""OS::Neutron::SecurityGroup: a security group with its rules given inline.

Neutron gives a new group rules allowing all egress; Heat keeps them unless the template
has egress rules of its own. An update makes the group's rules what the template says
(stale ones deleted, missing ones added), the default egress rules included when the
template has no egress rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.clients.errors import is_not_found
from hearth.common.errors import NotSupported, StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.neutron import security_group_rule as rule_schema
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.openstack.neutron.port import is_uuid_like
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import SupportStatus
from hearth.template.constraints import AllowedValues, CustomConstraint

RULES = "rules"
STATEFUL = "stateful"
STATEFUL_EXTENSION = "stateful-security-group"
DEFAULT_EGRESS = [{"direction": "egress", "ethertype": "IPv4"},
                  {"direction": "egress", "ethertype": "IPv6"}]
# What makes two rules the same rule (Neutron refuses duplicates of these).
RULE_KEYS = ("direction", "ethertype", "protocol", "port_range_min", "port_range_max",
             "remote_group_id", "remote_ip_prefix", "security_group_id")

RULE_SCHEMA = {
    "direction": rule_schema.direction(),
    "ethertype": rule_schema.ethertype(),
    "port_range_min": rule_schema.port_bound(rule_schema.PORT_MIN_DOC),
    "port_range_max": rule_schema.port_bound(rule_schema.PORT_MAX_DOC.format("type")),
    "protocol": P(
        P.STRING,
        rule_schema.PROTOCOL_DESCRIPTION + " If not specified, all protocols will be matched.",
        constraints=[AllowedValues(rule_schema.PROTOCOLS)],
    ),
    "remote_mode": P(
        P.STRING, "Whether to specify a remote group or a remote IP prefix.",
        default="remote_ip_prefix",
        constraints=[AllowedValues(["remote_ip_prefix", "remote_group_id"])],
    ),
    "remote_group_id": P(
        P.STRING,
        "The remote group ID to be associated with this security group rule. If no value "
        "is specified then this rule will use this security group for the remote_group_id. "
        'The remote mode parameter must be set to "remote_group_id".',
        constraints=[CustomConstraint("neutron.security_group")],
    ),
    "remote_ip_prefix": P(P.STRING, rule_schema.REMOTE_PREFIX_DOC,
                          constraints=[CustomConstraint("net_cidr")]),
    "description": P(P.STRING, "Description of the security group rule.",
                     support_status=SupportStatus(version="27.0.0")),
}


class SecurityGroup(NeutronResource):
    """A resource for managing Neutron security groups.

    Security groups are sets of IP filter rules that are applied to an
    instance's networking. They are project specific, and project members can
    edit the default rules for their group and add new rules sets. All projects
    have a "default" security group, which is applied to instances that have no
    other security group defined.
    """

    required_service_extension = "security-group"
    entity = "security_group"
    support_status = SupportStatus(version="2014.1")

    properties_schema = {
        "name": P(
            P.STRING,
            "A string specifying a symbolic name for the security group, which is not "
            "required to be unique.",
            update_allowed=True,
        ),
        "description": P(P.STRING, "Description of the security group.", update_allowed=True),
        RULES: P(P.LIST, "List of security group rules.", default=[],
                 schema=P(P.MAP, schema=RULE_SCHEMA), update_allowed=True),
        STATEFUL: P(P.BOOLEAN, "Whether to create this security group as stateful or "
                    "stateless.", update_allowed=True,
                    support_status=SupportStatus(version="27.0.0")),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        super().validate(properties, scope)
        if properties["name"] == "default":
            raise StackValidationFailed(
                'Security groups cannot be assigned the name "default".')

    # --- create --------------------------------------------------------------------------

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        props.pop(RULES, None)
        if STATEFUL in props and not self._has_stateful():
            if props[STATEFUL] is False:
                raise StackValidationFailed(
                    "Neutron does not support stateless security groups; remove the "
                    '"stateful" property or set it to true.')
            del props[STATEFUL]
        return props

    def after_create(self, props: Mapping[str, Any]) -> None:
        rules = list(props[RULES] or [])
        if not rules:
            return
        if any(r["direction"] == "egress" for r in rules):
            # The template's egress rules replace Neutron's default ones.
            for existing in list((self._obj or {}).get("security_group_rules", [])):
                if existing["direction"] == "egress":
                    self._delete_rule(existing["id"])
        self._create_rules([self._rule_body(r) for r in rules])

    def _has_stateful(self) -> bool:
        return STATEFUL_EXTENSION in self.cloud.extensions("network")

    # --- rules ---------------------------------------------------------------------------

    def _rule_body(self, rule: Mapping[str, Any]) -> dict[str, Any]:
        """A template rule as Neutron's rule of this group."""
        body = {k: v for k, v in rule.items() if v is not None}
        body["security_group_id"] = self.resource_id
        mode = body.pop("remote_mode", None)
        if mode == "remote_group_id":
            body.pop("remote_ip_prefix", None)
            # No remote group: the rule refers to its own group.
            group = str(body.get("remote_group_id") or self.resource_id)
            body["remote_group_id"] = group if is_uuid_like(group) else self.find(
                "security_group", group)
        elif mode is not None:
            body.pop("remote_group_id", None)
        return body

    def _create_rules(self, bodies: list[dict[str, Any]]) -> None:
        if bodies:
            self.api("POST", "/security-group-rules", {"security_group_rules": bodies})
            self._obj = None  # its rules changed: read again for ``show``

    def _delete_rule(self, rule_id: str) -> None:
        self._obj = None
        try:
            self.api("DELETE", f"/security-group-rules/{rule_id}")
        except Exception as exc:
            if not is_not_found(exc):
                raise

    def _reconcile_rules(self, rules: list[Mapping[str, Any]]) -> None:
        wanted = list(rules)
        if not any(r.get("direction") == "egress" for r in wanted):
            wanted += DEFAULT_EGRESS
        desired = {_rule_key(b): b for b in (self._rule_body(r) for r in wanted)}
        current = list(self.refresh().get("security_group_rules", []))
        current_keys = set()
        for rule in current:
            key = _rule_key(rule)
            current_keys.add(key)
            if key not in desired:
                self._delete_rule(rule["id"])
        self._create_rules([b for k, b in desired.items() if k not in current_keys])

    # --- update --------------------------------------------------------------------------

    def update_body(self, diff: dict[str, Any]) -> dict[str, Any]:
        rules = diff.pop(RULES, None)
        if "description" in diff and diff["description"] is None:
            # Removed from the template: Neutron has no null description, only an empty one.
            diff["description"] = ""
        if STATEFUL in diff:
            if diff[STATEFUL] is None:
                # Removed from the template: the group stays as it is.
                del diff[STATEFUL]
            elif diff[STATEFUL] != self.properties[STATEFUL]:
                self._ensure_no_ports()
        if diff:
            self.update_object(diff)
        if rules is not None:
            self._reconcile_rules(rules)
        return {}

    def _ensure_no_ports(self) -> None:
        """Neutron refuses to flip ``stateful`` while ports use the group: say so first."""
        found = self.api("GET", "/ports", params={"security_groups": self.resource_id,
                                                   "fields": "id"})
        if (found or {}).get("ports"):
            raise NotSupported(
                f'Updating the "stateful" property while security group "{self.resource_id}" '
                "is attached to ports. Detach all ports from the security group and retry.")


def _rule_key(rule: Mapping[str, Any]) -> tuple[str | None, ...]:
    return tuple(None if rule.get(k) is None else str(rule.get(k)) for k in RULE_KEYS)


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::SecurityGroup": SecurityGroup}
