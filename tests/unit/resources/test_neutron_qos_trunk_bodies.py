"""The Neutron requests that OS::Neutron::QoSPolicy, the QoS rules, OS::Neutron::Trunk and
OS::Neutron::ProviderNet send: paths, methods and bodies, in order.

The devcloud's Neutron has no qos or trunk extension, so these types cannot run against it
(tests/integration/cloud/test_neutron_unavailable_extensions.py shows the engine refusing
them there). These tests check Hearth's own request building against a recording stand-in
for openstacksdk's network adapter; they do not model Neutron's behaviour.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.openstack.neutron.provider_net import ProviderNet
from hearth.resources.openstack.neutron.qos import (
    QoSBandwidthLimitRule,
    QoSDscpMarkingRule,
    QoSMinimumBandwidthRule,
    QoSMinimumPacketRateRule,
    QoSPolicy,
)
from hearth.resources.openstack.neutron.trunk import Trunk
from tests.unit.resources.fakes import FakeResourceContext

POLICY_ID = "0c5f4b8e-0000-4000-8000-00000000a001"
PARENT_ID = "0c5f4b8e-0000-4000-8000-00000000b001"
SUB1_ID = "0c5f4b8e-0000-4000-8000-00000000b002"
SUB2_ID = "0c5f4b8e-0000-4000-8000-00000000b003"
SUB3_ID = "0c5f4b8e-0000-4000-8000-00000000b004"


class Response:
    def __init__(self, body: Any = None, status_code: int = 200) -> None:
        self.status_code = status_code
        self.headers: dict[str, str] = {}
        self._body = body
        self.content = b"" if body is None else json.dumps(body).encode()

    def json(self) -> Any:
        return self._body


@dataclass
class RecordingNetwork:
    """Records every request; answers lookups from ``named`` and writes with ``answers``."""

    # collection path -> {name: id}
    named: dict[str, dict[str, str]] = field(default_factory=dict)
    # (method, path) -> body to answer (default: an object with an id for POST, nothing else)
    answers: dict[tuple[str, str], Any] = field(default_factory=dict)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)

    def request(self, path: str, method: str, json: Any = None,
                params: Any = None) -> Response:
        self.calls.append((method, path, json if json is not None else params))
        return Response(self.answers.get((method, path)))

    def get(self, path: str, params: dict[str, str]) -> Response:
        """What neutron_find uses: a listing filtered by id or name."""
        self.calls.append(("GET", path, dict(params)))
        key = path.strip("/").split("/")[-1].replace("-", "_")
        objects = self.named.get(path.strip("/"), {})
        if "id" in params:
            found = [{"id": params["id"]}] if params["id"] in objects.values() else []
        else:
            found = [{"id": i} for n, i in objects.items() if n == params.get("name")]
        return Response({key: found})


@dataclass
class Conn:
    network: RecordingNetwork


class FakeCloud:
    def __init__(self, network: RecordingNetwork) -> None:
        self.conn = Conn(network)

    def call(self, fn: Any, *args: Any, service: str | None = None, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    def seen_recently(self, key: Any, find: Any, ttl: float = 0) -> Any:
        return find()  # every lookup reaches the recording network

    def made(self, key: Any, value: Any, ttl: float = 0) -> None:
        pass  # nothing is remembered: see seen_recently

    def gone(self, key: Any) -> None:
        pass


@dataclass
class CloudContext(FakeResourceContext):
    cloud: Any = None
    physical_ids: list[str | None] = field(default_factory=list)

    def physical_id_set(self, value: str | None) -> None:
        self.physical_ids.append(value)


def build(cls: type[NeutronResource], props: dict[str, Any], network: RecordingNetwork,
          resource_id: str | None = None,
          ctx: CloudContext | None = None) -> tuple[Any, CloudContext]:
    ctx = ctx or CloudContext(resource_name="r", cloud=FakeCloud(network))
    return cls("r", "T", props, ctx, resource_id=resource_id), ctx


def update(res: Any, cls: type[NeutronResource], old: dict[str, Any],
           new: dict[str, Any]) -> Any:
    plan = cls.plan_update("r", old, new)
    assert not plan.replace
    return res.handle_update(cls.build_properties(new), plan.prop_diff, None)


# --- QoS policy ---------------------------------------------------------------------------

def test_policy_create_update_delete() -> None:
    net = RecordingNetwork(answers={("POST", "/qos/policies"): {"policy": {"id": "p1"}}})
    res, ctx = build(QoSPolicy, {"description": "gold"}, net)
    assert res.handle_create() is None
    assert net.calls == [("POST", "/qos/policies", {"policy": {
        "name": ctx.physical_resource_name(), "description": "gold", "shared": False}})]
    assert (res.resource_id, ctx.physical_ids) == ("p1", ["p1"])

    net.calls.clear()
    update(res, QoSPolicy, {"description": "gold"}, {"description": "silver", "shared": True})
    assert net.calls == [("PUT", "/qos/policies/p1",
                          {"policy": {"description": "silver", "shared": True}})]

    net.calls.clear()
    res.handle_delete()
    assert net.calls == [("DELETE", "/qos/policies/p1", None)]


def test_policy_rules_attribute_reads_the_policy() -> None:
    rules = [{"id": "x", "type": "dscp_marking", "dscp_mark": 8}]
    net = RecordingNetwork(answers={("GET", "/qos/policies/p1"): {"policy": {"rules": rules}}})
    res, _ = build(QoSPolicy, {}, net, resource_id="p1")
    assert res.get_attribute("rules") == rules
    assert net.calls == [("GET", "/qos/policies/p1", None)]


# --- QoS rules ----------------------------------------------------------------------------

RULES = [
    (QoSBandwidthLimitRule, {"max_kbps": 1000},
     {"max_kbps": 1000, "max_burst_kbps": 0, "direction": "egress"},
     {"max_kbps": 2000, "direction": "ingress"}),
    (QoSDscpMarkingRule, {"dscp_mark": 26}, {"dscp_mark": 26}, {"dscp_mark": 46}),
    (QoSMinimumBandwidthRule, {"min_kbps": 500},
     {"min_kbps": 500, "direction": "egress"}, {"min_kbps": 600}),
    (QoSMinimumPacketRateRule, {"min_kpps": 10, "direction": "any"},
     {"min_kpps": 10, "direction": "any"}, {"min_kpps": 20, "direction": "any"}),
]


@pytest.mark.parametrize(("cls", "props", "body", "changed"), RULES,
                         ids=[r[0].__name__ for r in RULES])
def test_rule_lifecycle_finds_the_policy_once(
    cls: type[NeutronResource], props: dict[str, Any], body: dict[str, Any],
    changed: dict[str, Any],
) -> None:
    entity = cls.entity
    assert entity is not None
    rules = f"/qos/policies/{POLICY_ID}/{entity}s"
    net = RecordingNetwork(named={"qos/policies": {"gold": POLICY_ID}},
                           answers={("POST", rules): {entity: {"id": "rule1"}}})
    res, ctx = build(cls, {"policy": "gold", **props}, net)
    res.handle_create()
    assert net.calls == [
        ("GET", "/qos/policies", {"name": "gold"}),     # not a UUID: asked for by name only
        ("POST", rules, {entity: body}),
    ]
    assert (res.resource_id, ctx.stored["policy_id"]) == ("rule1", POLICY_ID)

    # Later steps (a new instance, as the engine makes) use the policy id kept at create.
    net.calls.clear()
    old = {"policy": "gold", **props}
    res, _ = build(cls, old, net, resource_id="rule1", ctx=ctx)
    update(res, cls, old, {**old, **changed})
    diff = {k: v for k, v in changed.items() if body.get(k) != v}
    assert net.calls == [("PUT", f"{rules}/rule1", {entity: diff})]

    net.calls.clear()
    res, _ = build(cls, old, net, resource_id="rule1", ctx=ctx)
    res.handle_delete()
    assert net.calls == [("DELETE", f"{rules}/rule1", None)]


def test_rule_tenant_is_sent_and_the_policy_is_not() -> None:
    rules = f"/qos/policies/{POLICY_ID}/dscp_marking_rules"
    net = RecordingNetwork(named={"qos/policies": {"gold": POLICY_ID}},
                           answers={("POST", rules): {"dscp_marking_rule": {"id": "r"}}})
    res, _ = build(QoSDscpMarkingRule,
                   {"policy": POLICY_ID, "dscp_mark": 8, "tenant_id": "t1"}, net)
    res.handle_create()
    # An id is found by the first lookup; the body has no policy in it.
    assert net.calls == [
        ("GET", "/qos/policies", {"id": POLICY_ID}),
        ("POST", rules, {"dscp_marking_rule": {"dscp_mark": 8, "tenant_id": "t1"}}),
    ]


# --- trunk --------------------------------------------------------------------------------

PORTS = {"parent": PARENT_ID, "sub1": SUB1_ID, "sub2": SUB2_ID, "sub3": SUB3_ID}


def subport(port: str, seg_id: int) -> dict[str, Any]:
    return {"port": port, "segmentation_type": "vlan", "segmentation_id": seg_id}


def test_trunk_create_sends_port_ids_and_waits_until_built() -> None:
    net = RecordingNetwork(named={"ports": PORTS}, answers={
        ("POST", "/trunks"): {"trunk": {"id": "t1", "status": "BUILD"}},
        ("GET", "/trunks/t1"): {"trunk": {"id": "t1", "status": "ACTIVE",
                                          "port_id": PARENT_ID}},
    })
    props = {"port": PARENT_ID, "sub_ports": [subport("sub1", 10)], "admin_state_up": True}
    res, ctx = build(Trunk, props, net)
    cookie = res.handle_create()
    posted = net.calls[-1]
    assert posted == ("POST", "/trunks", {"trunk": {
        "name": ctx.physical_resource_name(), "admin_state_up": True, "port_id": PARENT_ID,
        "sub_ports": [{"port_id": SUB1_ID, "segmentation_type": "vlan",
                       "segmentation_id": 10}],
    }})
    assert cookie == "t1"
    assert res.check_create_complete(cookie) is True
    assert net.calls[-1] == ("GET", "/trunks/t1", None)
    assert res.get_attribute("port_id") == PARENT_ID


def test_trunk_update_removes_then_adds_only_the_changed_subports() -> None:
    net = RecordingNetwork(named={"ports": PORTS}, answers={
        ("GET", "/trunks/t1"): {"trunk": {"id": "t1", "status": "ACTIVE"}},
    })
    old = {"port": "parent", "sub_ports": [subport("sub1", 10), subport("sub2", 20)]}
    new = {"port": "parent", "name": "renamed",
           "sub_ports": [subport("sub1", 10), subport("sub2", 21), subport("sub3", 30)]}
    res, _ = build(Trunk, old, net, resource_id="t1")
    cookie = update(res, Trunk, old, new)
    writes = [c for c in net.calls if c[0] == "PUT"]
    assert writes == [
        ("PUT", "/trunks/t1", {"trunk": {"name": "renamed"}}),
        ("PUT", "/trunks/t1/remove_subports", {"sub_ports": [{"port_id": SUB2_ID}]}),
        ("PUT", "/trunks/t1/add_subports", {"sub_ports": [
            {"port_id": SUB2_ID, "segmentation_type": "vlan", "segmentation_id": 21},
            {"port_id": SUB3_ID, "segmentation_type": "vlan", "segmentation_id": 30},
        ]}),
    ]
    # sub1 did not change: it is neither removed nor looked up.
    assert not [c for c in net.calls if c[2] == {"name": "sub1"} or c[2] == {"id": "sub1"}]
    assert cookie == "t1" and res.check_update_complete(cookie) is True


def test_trunk_update_of_fields_only_makes_no_subport_calls() -> None:
    net = RecordingNetwork(answers={("GET", "/trunks/t1"): {"trunk": {"status": "DOWN"}}})
    old = {"port": PARENT_ID, "sub_ports": [subport(SUB1_ID, 10)]}
    res, _ = build(Trunk, old, net, resource_id="t1")
    update(res, Trunk, old, {**old, "description": "d", "admin_state_up": False})
    assert net.calls == [("PUT", "/trunks/t1",
                          {"trunk": {"description": "d", "admin_state_up": False}})]


def test_trunk_parent_port_cannot_change() -> None:
    from hearth.common.errors import NotSupported

    with pytest.raises(NotSupported, match="Update to properties port of r"):
        Trunk.plan_update("r", {"port": "a"}, {"port": "b"}, type_name="OS::Neutron::Trunk")


# --- provider net -------------------------------------------------------------------------

def test_provider_net_sends_provider_and_router_fields() -> None:
    net = RecordingNetwork(answers={("POST", "/networks"): {"network": {
        "id": "n1", "status": "ACTIVE"}}})
    props = {"network_type": "vlan", "physical_network": "physnet1", "segmentation_id": "42",
             "tags": ["x"]}
    res, ctx = build(ProviderNet, props, net)
    assert res.handle_create() is None
    assert net.calls == [
        ("POST", "/networks", {"network": {
            "name": ctx.physical_resource_name(), "provider:network_type": "vlan",
            "provider:physical_network": "physnet1", "provider:segmentation_id": "42",
            "admin_state_up": True, "shared": True, "router:external": False}}),
        ("PUT", "/networks/n1/tags", {"tags": ["x"]}),
    ]
    net.calls.clear()
    update(res, ProviderNet, props, {**props, "segmentation_id": "43",
                                     "router_external": True})
    assert net.calls == [("PUT", "/networks/n1", {"network": {
        "provider:segmentation_id": "43", "router:external": True}})]
