"""AWS::EC2::SecurityGroup: a Neutron security group whose rules follow the CFN ingress and
egress lists; an update deletes the rules the new lists lack and creates the new ones (Neutron's
default rules included, as in Heat)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hearth.clients.errors import is_conflict
from hearth.resources.openstack.aws.common import Ec2NeutronResource, ignore_not_found
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P

INGRESS, EGRESS = "SecurityGroupIngress", "SecurityGroupEgress"

RULE_SCHEMA = {
    "CidrIp": P(P.STRING),
    "FromPort": P(P.STRING),
    "ToPort": P(P.STRING),
    "IpProtocol": P(P.STRING),
    "SourceSecurityGroupId": P(P.STRING),
    "SourceSecurityGroupName": P(P.STRING),
    "SourceSecurityGroupOwnerId": P(P.STRING, implemented=False),
}

# A rule compared across the template and Neutron (Heat's "common" form).
Rule = dict[str, Any]


def _port(value: Any) -> int | None:
    """Neutron takes only positive ports: a negative one means none."""
    if value is None:
        return None
    port = int(value)
    return port if port >= 0 else None


def template_rules(ingress: Sequence[Mapping[str, Any]] | None,
                   egress: Sequence[Mapping[str, Any]] | None) -> list[Rule]:
    out: list[Rule] = []
    for rules, direction in ((ingress, "ingress"), (egress, "egress")):
        for rule in rules or []:
            no_ports = rule.get("FromPort") is None and rule.get("ToPort") is None
            out.append({
                "CidrIp": None if no_ports else rule.get("CidrIp"),
                "FromPort": _port(rule.get("FromPort")),
                "ToPort": _port(rule.get("ToPort")),
                "IpProtocol": rule.get("IpProtocol"),
                # Neutron understands a group's name as well as its id.
                "SourceSecurityGroupId": (rule.get("SourceSecurityGroupId")
                                          or rule.get("SourceSecurityGroupName")),
                "direction": direction,
            })
    return out


def neutron_rules(rules: Sequence[Mapping[str, Any]]) -> dict[str, Rule]:
    return {
        str(r["id"]): {
            "CidrIp": r.get("remote_ip_prefix"),
            "FromPort": r.get("port_range_min"),
            "ToPort": r.get("port_range_max"),
            "IpProtocol": r.get("protocol"),
            "SourceSecurityGroupId": r.get("remote_group_id"),
            "direction": r.get("direction"),
        }
        for r in rules
    }


class SecurityGroup(Ec2NeutronResource):
    entity = "security_group"
    collection = "security-groups"

    properties_schema = {
        "GroupDescription": P(P.STRING, "Description of the security group.", required=True),
        "VpcId": P(P.STRING, "Physical ID of the VPC. Not implemented."),
        INGRESS: P(
            P.LIST,
            schema=P(P.MAP, "List of security group ingress rules.", schema=RULE_SCHEMA),
            update_allowed=True,
        ),
        EGRESS: P(
            P.LIST,
            schema=P(P.MAP, "List of security group egress rules.", schema=RULE_SCHEMA),
            update_allowed=True,
        ),
    }

    def _create_rule(self, rule: Rule) -> None:
        body = {
            "direction": rule["direction"],
            "ethertype": "IPv4",
            "remote_ip_prefix": rule["CidrIp"],
            "port_range_min": rule["FromPort"],
            "port_range_max": rule["ToPort"],
            "protocol": rule["IpProtocol"],
            "remote_group_id": rule["SourceSecurityGroupId"],
            "security_group_id": self.resource_id,
        }
        try:
            self.api("POST", "/security-group-rules", {"security_group_rule": body})
        except Exception as exc:
            # The same rule exists already: nothing to do.
            if not is_conflict(exc):
                raise

    def _delete_rule(self, rule_id: str) -> None:
        ignore_not_found(lambda: self.api("DELETE", f"/security-group-rules/{rule_id}"))

    def handle_create(self) -> Any:
        props = self.properties
        group = self.create_object({
            "name": self.physical_resource_name(),
            "description": props["GroupDescription"],
        })
        if props[EGRESS]:
            # Egress rules given: Neutron's allow-all egress rules go.
            for rule in group.get("security_group_rules") or []:
                if rule["direction"] == "egress":
                    self.api("DELETE", f"/security-group-rules/{rule['id']}")
        for rule in template_rules(props[INGRESS], props[EGRESS]):
            self._create_rule(rule)
        return None

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        if INGRESS not in prop_diff and EGRESS not in prop_diff:
            return None
        group = self.refresh()
        existing = neutron_rules(group.get("security_group_rules") or [])
        wanted = template_rules(new_properties[INGRESS], new_properties[EGRESS])
        for rule_id, rule in existing.items():
            if rule not in wanted:
                self._delete_rule(rule_id)
        for rule in wanted:
            if rule not in existing.values():
                self._create_rule(rule)
        return None

    def handle_delete(self) -> Any:
        if self.resource_id is not None:
            # Neutron deletes the rules with the group.
            ignore_not_found(lambda: self.api("DELETE", f"/security-groups/{self.resource_id}"))
        return None


def resource_mapping() -> dict[str, type[Ec2NeutronResource]]:
    return {"AWS::EC2::SecurityGroup": SecurityGroup}
