"""Types whose Neutron extension the devcloud lacks (qos, trunk, the minimum-rate QoS rules):
the engine refuses a stack that uses one, as Heat does (HEAT-E99001), and creates nothing.

This is all these types can show against the devcloud: its Neutron has no qos or trunk
service plugin, so their create/update/delete are covered by the request-body unit tests
(tests/unit/resources/test_neutron_qos_trunk_bodies.py), not against a real Neutron.
"""

from __future__ import annotations

import pytest
from openstack.connection import Connection

from hearth.common.context import RequestContext
from hearth.common.errors import ResourceTypeUnavailable
from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import unique

# These types are admin-only in Heat's policy: the request comes from an admin.
ADMIN = RequestContext(project_id="admin", user_id="admin", username="admin", roles=("admin",))

POLICY = "11111111-2222-4333-8444-555555555555"
PORT = "66666666-7777-4888-8999-000000000000"

# type: (properties, the extension Heat names)
CASES: dict[str, tuple[dict[str, object], str]] = {
    "OS::Neutron::QoSPolicy": ({"name": "p"}, "qos"),
    "OS::Neutron::QoSBandwidthLimitRule": ({"policy": POLICY, "max_kbps": 100}, "qos"),
    "OS::Neutron::QoSDscpMarkingRule": ({"policy": POLICY, "dscp_mark": 8}, "qos"),
    "OS::Neutron::QoSMinimumBandwidthRule": (
        {"policy": POLICY, "min_kbps": 100}, "qos-bw-minimum-ingress"
    ),
    "OS::Neutron::QoSMinimumPacketRateRule": (
        {"policy": POLICY, "min_kpps": 100}, "qos-pps-minimum"
    ),
    "OS::Neutron::Trunk": ({"port": PORT}, "trunk"),
}


def test_the_devcloud_lacks_these_extensions(demo_conn: Connection) -> None:
    aliases = {e.alias for e in demo_conn.network.extensions()}
    # Were one of them enabled, these types should get real lifecycle tests instead.
    assert not {"qos", "trunk", "qos-bw-minimum-ingress", "qos-pps-minimum"} & aliases


@pytest.mark.parametrize("type_name", sorted(CASES))
def test_stack_is_refused_and_nothing_is_created(
    type_name: str, admin_cloud_engine: Engine, admin_conn: Connection
) -> None:
    props, extension = CASES[type_name]
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            # A network beside it: proves the refusal comes before anything is made.
            "net": {"type": "OS::Neutron::Net"},
            "it": {"type": type_name, "properties": props},
        },
    }
    name = unique("unavailable")
    with pytest.raises(ResourceTypeUnavailable) as caught:
        admin_cloud_engine.create_stack(ADMIN, name, template, {})
    assert caught.value.error_code == "99001"
    assert str(caught.value) == (
        f"HEAT-E99001 Service neutron is not available for resource type {type_name}, reason: "
        f"Required extension {extension} in neutron service is not available."
    )
    assert not [s for s in admin_cloud_engine.list_stacks(ADMIN) if s["stack_name"] == name]
    # No network of this stack (they would be named after it) exists.
    assert not [n for n in admin_conn.network.networks() if name in (n.name or "")]


def test_the_types_are_not_listed_for_this_cloud(admin_cloud_engine: Engine) -> None:
    listed = set(admin_cloud_engine.list_resource_types(ADMIN))
    assert not set(CASES) & listed
    # The types whose extensions the devcloud has are listed.
    assert {"OS::Neutron::ProviderNet", "OS::Neutron::AddressScope",
            "OS::Neutron::SubnetPool", "OS::Neutron::Quota"} <= listed
