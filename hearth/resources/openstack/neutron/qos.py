"""OS::Neutron::QoSPolicy and its rules (bandwidth limit, DSCP marking, minimum bandwidth,
minimum packet rate): Neutron's ``qos`` extension (the minimum rules need one more each).

A rule lives under its policy (``/qos/policies/<policy>/<kind>_rules/<rule>``): the policy,
named or by id, is looked up once at create and kept in the resource's data, so later steps
(reads, update, delete) do not look it up again. A rule's changed limits are PUT as they
are; a new policy or tenant replaces the rule.
"""

from __future__ import annotations

from typing import Any

from hearth.resources.attributes import AttributeSchema
from hearth.resources.openstack.base import since
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedValues, CustomConstraint, Range

POLICY_ID = "policy_id"


class QoSPolicy(NeutronResource):
    """A resource for Neutron QoS Policy.

    This QoS policy can be associated with neutron resources,
    such as port and network, to provide QoS capabilities.

    The default policy usage of this resource is limited to
    administrators only.
    """

    required_service_extension = "qos"
    support_status = since("6.0.0")
    entity = "policy"
    collection = "qos/policies"
    lookup_kind = "qos_policy"

    properties_schema = {
        "name": P(P.STRING, "The name for the QoS policy.", update_allowed=True),
        "description": P(P.STRING, "The description for the QoS policy.",
                         update_allowed=True),
        "shared": P(
            P.BOOLEAN,
            "Whether this QoS policy should be shared to other tenants.",
            default=False,
            update_allowed=True,
        ),
        "tenant_id": P(P.STRING, "The owner tenant ID of this QoS policy."),
    }

    attributes_schema = {
        "rules": AttributeSchema(
            "A list of all rules for the QoS policy.", type=AttributeSchema.LIST
        ),
    }


class QoSRule(NeutronResource):
    """A resource for Neutron QoS base rule."""

    required_service_extension = "qos"
    support_status = since("6.0.0")
    # Subclasses name the rule kind (``bandwidth_limit_rule``; its collection adds an s).

    properties_schema = {
        "policy": P(
            P.STRING,
            "ID or name of the QoS policy.",
            required=True,
            constraints=[CustomConstraint("neutron.qos_policy")],
        ),
        "tenant_id": P(P.STRING, "The owner tenant ID of this rule."),
    }

    @property
    def policy_id(self) -> str:
        """The policy's id: kept from create, else looked up (once per step)."""
        kept = self.data().get(POLICY_ID)
        if kept:
            return kept
        found = self.find("qos_policy", self.properties["policy"])
        assert found is not None
        self.data_set(POLICY_ID, found)
        return found

    def rules_path(self) -> str:
        return f"/qos/policies/{self.policy_id}/{self.entity}s"

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        props.pop("policy", None)
        return props

    def create_object(self, body: Any) -> dict[str, Any]:
        assert self.entity is not None
        found = self.api("POST", self.rules_path(), {self.entity: dict(body)})[self.entity]
        self.resource_id_set(str(found["id"]))
        self._obj = found
        return dict(found)

    def fetch(self) -> dict[str, Any]:
        assert self.entity is not None
        return dict(self.api("GET", f"{self.rules_path()}/{self.resource_id}")[self.entity])

    def update_object(self, body: Any) -> dict[str, Any] | None:
        assert self.entity is not None
        if not body:
            return None
        found = self.api("PUT", f"{self.rules_path()}/{self.resource_id}",
                         {self.entity: dict(body)})
        self._obj = found[self.entity] if found else None
        return self._obj  # type: ignore[no-any-return]

    def delete_object(self) -> None:
        self.api("DELETE", f"{self.rules_path()}/{self.resource_id}")


def _direction(values: list[str], **extra: Any) -> P:
    return P(
        P.STRING,
        "Traffic direction from the point of view of the port.",
        update_allowed=True,
        constraints=[AllowedValues(values)],
        default="egress",
        **extra,
    )


def _rate(description: str) -> P:
    return P(P.INTEGER, description, required=True, update_allowed=True,
             constraints=[Range(min=0)])


class QoSBandwidthLimitRule(QoSRule):
    """A resource for Neutron QoS bandwidth limit rule.

    This rule can be associated with QoS policy, and then the policy
    can be used by neutron port and network, to provide bandwidth limit
    QoS capabilities.

    The default policy usage of this resource is limited to
    administrators only.
    """

    entity = "bandwidth_limit_rule"

    properties_schema = {
        "max_kbps": _rate("Max bandwidth in kbps."),
        "max_burst_kbps": P(
            P.INTEGER,
            "Max burst bandwidth in kbps.",
            update_allowed=True,
            constraints=[Range(min=0)],
            default=0,
        ),
        "direction": _direction(["egress", "ingress"], support_status=since("13.0.0")),
        **QoSRule.properties_schema,
    }


class QoSDscpMarkingRule(QoSRule):
    """A resource for Neutron QoS DSCP marking rule.

    This rule can be associated with QoS policy, and then the policy
    can be used by neutron port and network, to provide DSCP marking
    QoS capabilities.

    The default policy usage of this resource is limited to
    administrators only.
    """

    support_status = since("7.0.0")
    entity = "dscp_marking_rule"

    properties_schema = {
        "dscp_mark": P(
            P.INTEGER,
            "DSCP mark between 0 and 56, except 2-6, 42, 44, and 50-54.",
            required=True,
            update_allowed=True,
            constraints=[AllowedValues([0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
                                        32, 34, 36, 38, 40, 46, 48, 56])],
        ),
        **QoSRule.properties_schema,
    }


class QoSMinimumBandwidthRule(QoSRule):
    """A resource for guaranteeing bandwidth.

    This rule can be associated with a QoS policy, and then the policy
    can be used by a neutron port to provide guaranteed bandwidth QoS
    capabilities.

    Depending on drivers the guarantee may be enforced on two levels.
    First when a server is placed (scheduled) on physical infrastructure
    and/or second in the data plane of the physical hypervisor. For details
    please see Neutron documentation:

    https://docs.openstack.org/neutron/latest/admin/config-qos-min-bw.html

    The default policy usage of this resource is limited to
    administrators only.
    """

    required_service_extension = "qos-bw-minimum-ingress"
    support_status = since("14.0.0")
    entity = "minimum_bandwidth_rule"

    properties_schema = {
        "min_kbps": _rate("Min bandwidth in kbps."),
        "direction": _direction(["egress", "ingress"]),
        **QoSRule.properties_schema,
    }


class QoSMinimumPacketRateRule(QoSRule):
    """A resource for guaranteeing packet rate.

    This rule can be associated with a QoS policy, and then the policy
    can be used by a neutron port to provide guaranteed packet rate QoS
    capabilities.

    Depending on drivers the guarantee may be enforced on two levels.
    First when a server is placed (scheduled) on physical infrastructure
    and/or second in the data plane of the physical hypervisor. For details
    please see Neutron documentation:

    https://docs.openstack.org/neutron/latest/admin/config-qos-min-pps.html

    The default policy usage of this resource is limited to
    administrators only.
    """

    required_service_extension = "qos-pps-minimum"
    support_status = since("19.0.0")
    entity = "minimum_packet_rate_rule"

    properties_schema = {
        "min_kpps": _rate("Min packet rate in kpps."),
        "direction": _direction(["any", "egress", "ingress"]),
        **QoSRule.properties_schema,
    }


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {
        "OS::Neutron::QoSPolicy": QoSPolicy,
        "OS::Neutron::QoSBandwidthLimitRule": QoSBandwidthLimitRule,
        "OS::Neutron::QoSDscpMarkingRule": QoSDscpMarkingRule,
        "OS::Neutron::QoSMinimumBandwidthRule": QoSMinimumBandwidthRule,
        "OS::Neutron::QoSMinimumPacketRateRule": QoSMinimumPacketRateRule,
    }
