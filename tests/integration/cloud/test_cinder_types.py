"""The admin-only Cinder types against the devcloud: OS::Cinder::VolumeType,
OS::Cinder::EncryptedVolumeType, OS::Cinder::QoSSpecs and OS::Cinder::QoSAssociation."""

from __future__ import annotations

from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from tests.integration.cloud.cinder_helpers import (
    ADMIN,
    Cleanup,
    assert_cinder_clean,
    cinder_inventory,
    stack_cleanup,
    template,
)
from tests.integration.cloud.conftest import (
    action,
    create,
    delete,
    outputs,
    physical_id,
    unique,
    update,
)
from tests.integration.engine.conftest import resources, wait_state

cleanup_fixture = pytest.fixture(name="cleanup")(stack_cleanup)

KINDS = ("types", "qos_specs")


def types_template(names: dict[str, str], *, vtype: dict[str, Any], enc: dict[str, Any],
                   qos: dict[str, Any], assoc: dict[str, Any] | None) -> dict[str, Any]:
    resources_: dict[str, Any] = {
        "vtype": {"type": "OS::Cinder::VolumeType",
                  "properties": {"name": names["vtype"], **vtype}},
        "vtype2": {"type": "OS::Cinder::VolumeType", "properties": {"name": names["vtype2"]}},
        "enc": {"type": "OS::Cinder::EncryptedVolumeType", "properties": enc},
        "qos": {"type": "OS::Cinder::QoSSpecs", "properties": qos},
    }
    if assoc is not None:
        resources_["assoc"] = {"type": "OS::Cinder::QoSAssociation", "properties": assoc}
    return template(resources_, {
        "vtype_show": {"get_attr": ["vtype", "show"]},
        "enc_show": {"get_attr": ["enc", "show"]},
        "qos_show": {"get_attr": ["qos", "show"]},
    })


def associated_types(conn: Connection, qos_id: str) -> list[str]:
    found = conn.block_storage.get(f"/qos-specs/{qos_id}/associations").json()
    return sorted(a["id"] for a in found["qos_associations"])


def type_access(conn: Connection, type_id: str) -> list[str]:
    found = conn.block_storage.get(f"/types/{type_id}/os-volume-type-access").json()
    return sorted(a["project_id"] for a in found["volume_type_access"])


def test_volume_type_encryption_and_qos(admin_cloud_engine: Engine, admin_conn: Connection,
                                        demo_conn: Connection, cleanup: Cleanup) -> None:
    engine, conn = admin_cloud_engine, admin_conn
    before = cinder_inventory(conn, KINDS)
    names = {"vtype": unique("hearth-vt"), "vtype2": unique("hearth-vt2")}
    demo_project = demo_conn.current_project_id
    assert demo_project is not None
    enc = {"provider": "luks", "cipher": "aes-xts-plain64", "key_size": 256,
           "volume_type": {"get_resource": "vtype"}}
    tmpl = types_template(
        names,
        vtype={"metadata": {"color": "red"}, "is_public": False, "description": "first",
               "projects": ["demo"]},
        enc=enc,
        qos={"specs": {"read_iops_sec": "100"}},
        assoc={"qos_specs": {"get_resource": "qos"},
               "volume_types": [{"get_resource": "vtype"}]},
    )
    stack = cleanup(engine, create(engine, "types", tmpl, ctx=ADMIN), ADMIN)
    state = wait_state(engine, stack)
    assert state[:2] == ("CREATE", "COMPLETE"), state
    vtype_id = physical_id(engine, stack, "vtype")
    vtype2_id = physical_id(engine, stack, "vtype2")
    qos_id = physical_id(engine, stack, "qos")
    vtype = conn.block_storage.get_type(vtype_id)
    assert (vtype.name, vtype.description, vtype.is_public) == (names["vtype"], "first", False)
    assert vtype.extra_specs == {"color": "red"}
    assert type_access(conn, vtype_id) == [demo_project]
    # The encryption's physical id is its volume type's.
    assert physical_id(engine, stack, "enc") == vtype_id
    encryption = conn.block_storage.get_type_encryption(vtype_id)
    assert (encryption.provider, encryption.cipher, encryption.key_size,
            encryption.control_location) == ("luks", "aes-xts-plain64", 256, "front-end")
    qos = conn.block_storage.get_qos_spec(qos_id)
    assert qos.specs == {"read_iops_sec": "100"}
    assert qos.name.startswith("types-") and "-qos-" in qos.name
    assert associated_types(conn, qos_id) == [vtype_id]
    out = outputs(engine, stack, ADMIN)
    assert out["vtype_show"]["id"] == vtype_id and out["vtype_show"]["name"] == names["vtype"]
    assert out["enc_show"]["volume_type_id"] == vtype_id
    assert out["qos_show"]["specs"] == {"read_iops_sec": "100"}

    # None of these types has a CHECK in Heat.
    assert action(engine, stack, "check", ADMIN)[:2] == ("CHECK", "COMPLETE")
    for name, kind in (("vtype", "VolumeType"), ("enc", "EncryptedVolumeType"),
                       ("qos", "QoSSpecs"), ("assoc", "QoSAssociation")):
        reason = resources(engine, stack)[name].status_reason
        assert reason == f"CHECK not supported for OS::Cinder::{kind}"

    # In place: rename and re-describe the type, new extra specs, access for nobody; other
    # encryption settings; new QoS specs; the association moves to the other type.
    names["vtype"] = unique("hearth-vt-renamed")
    tmpl = types_template(
        names,
        vtype={"metadata": {"size": "big"}, "is_public": False, "description": "second",
               "projects": []},
        enc={**enc, "key_size": 512, "control_location": "back-end"},
        qos={"specs": {"read_iops_sec": "200", "write_iops_sec": "50"}},
        assoc={"qos_specs": {"get_resource": "qos"},
               "volume_types": [{"get_resource": "vtype2"}]},
    )
    state = update(engine, stack, tmpl, ctx=ADMIN)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "vtype") == vtype_id
    assert physical_id(engine, stack, "qos") == qos_id
    vtype = conn.block_storage.get_type(vtype_id)
    assert (vtype.name, vtype.description) == (names["vtype"], "second")
    assert vtype.extra_specs == {"size": "big"}
    assert type_access(conn, vtype_id) == []
    encryption = conn.block_storage.get_type_encryption(vtype_id)
    assert (encryption.key_size, encryption.control_location) == (512, "back-end")
    assert conn.block_storage.get_qos_spec(qos_id).specs == {
        "read_iops_sec": "200", "write_iops_sec": "50"}
    assert associated_types(conn, qos_id) == [vtype2_id]

    # Replacement: the encryption moves to another type, the QoS specs get a name (not
    # updatable); the association is dropped (a type takes one QoS specs at a time).
    tmpl = types_template(
        names,
        vtype={"metadata": {"size": "big"}, "is_public": False, "description": "second"},
        enc={**enc, "volume_type": {"get_resource": "vtype2"}},
        qos={"name": unique("hearth-qos"), "specs": {"read_iops_sec": "200"}},
        assoc=None,
    )
    state = update(engine, stack, tmpl, ctx=ADMIN)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "enc") == vtype2_id
    assert conn.block_storage.get(f"/types/{vtype_id}/encryption").json() == {}
    new_qos = physical_id(engine, stack, "qos")
    assert new_qos != qos_id and conn.block_storage.find_qos_spec(qos_id) is None
    assert associated_types(conn, new_qos) == []

    assert delete(engine, stack, ADMIN)[:2] == ("DELETE", "COMPLETE")
    assert conn.block_storage.find_type(vtype_id) is None
    assert_cinder_clean(conn, before)


def test_private_type_projects_are_refused_on_a_public_type(
    admin_cloud_engine: Engine
) -> None:
    tmpl = template({"vtype": {"type": "OS::Cinder::VolumeType", "properties": {
        "name": unique("hearth-vt"), "projects": ["demo"]}}})
    with pytest.raises(StackValidationFailed, match='Can not specify property "projects" if '
                       "the volume type is public."):
        admin_cloud_engine.create_stack(ADMIN, unique("bad"), tmpl, {})
