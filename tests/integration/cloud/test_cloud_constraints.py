"""Service custom constraints (nova.flavor, glance.image, nova.keypair) against the devcloud.

A parameter constrained to name a flavor, image or key pair that does not exist refuses the
stack at create, synchronously and with Heat's message, before anything is made; one that
names an existing object lets the stack be created.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import CTX, create, delete, state, unique


def template(constraint: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "value": {"type": "string", "constraints": [{"custom_constraint": constraint}]},
        },
        "resources": {"nothing": {"type": "OS::Heat::None"}},
        "outputs": {"value": {"value": {"get_param": "value"}}},
    }


@pytest.fixture
def keypair(demo_conn: Connection) -> Iterator[str]:
    name = unique("constraint-kp")
    demo_conn.compute.create_keypair(name=name)
    yield name
    demo_conn.compute.delete_keypair(name)


MISSING = [
    ("nova.flavor", "The Flavor ({}) could not be found."),
    ("glance.image", "The Image ({}) could not be found."),
    ("nova.keypair", "The Key ({}) could not be found."),
]


@pytest.mark.parametrize(("constraint", "reason"), MISSING)
def test_a_missing_object_refuses_the_stack(cloud_engine: Engine, constraint: str,
                                            reason: str) -> None:
    missing = unique("no-such")
    stacks = cloud_engine.count_stacks(CTX)
    with pytest.raises(StackValidationFailed) as caught:
        cloud_engine.create_stack(CTX, unique("constrained"), template(constraint),
                                  {"value": missing})
    assert str(caught.value) == (
        f"Parameter 'value' is invalid: Error validating value '{missing}': "
        f"{reason.format(missing)}"
    )
    assert cloud_engine.count_stacks(CTX) == stacks


@pytest.mark.parametrize(("constraint", "value"), [
    ("nova.flavor", "m1.tiny"),
    ("nova.flavor", "1"),  # by id too
    ("glance.image", "cirros"),
])
def test_an_existing_object_is_accepted(cloud_engine: Engine, constraint: str,
                                        value: str) -> None:
    stack = create(cloud_engine, "constrained", template(constraint), {"value": value})
    assert state(cloud_engine, stack)[:2] == ("CREATE", "COMPLETE")
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")


def test_an_existing_keypair_is_accepted(cloud_engine: Engine, keypair: str) -> None:
    stack = create(cloud_engine, "constrained", template("nova.keypair"), {"value": keypair})
    assert state(cloud_engine, stack)[:2] == ("CREATE", "COMPLETE")
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
