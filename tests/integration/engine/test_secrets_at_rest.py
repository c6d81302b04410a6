"""A hidden parameter, what is made from it, and a signal secret: nowhere in clear, neither
in any table's raw rows nor in export, abandon or snapshot show; adopt still restores them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import MetaData, create_engine, select

from hearth.common.errors import Invalid
from hearth.engine.engine import Engine
from hearth.engine.services.payload_secrets import adopt_parameters, open_resources, seal_payload
from hearth.store.crypto import Encryptor
from tests.integration.engine.conftest import CTX, resources, stack_row, wait_state
from tests.integration.engine.test_lifecycle import create, template

SECRET = "Hunter2-hidden-Zq8"

TEMPLATE = template(
    {
        "derived": {"type": "OS::Heat::Value", "properties": {
            "value": {"str_replace": {"template": "user:PW", "params": {
                "PW": {"get_param": "password"}}}}}},
        "rand": {"type": "OS::Heat::RandomString", "properties": {
            "salt": {"get_param": "password"}}},
        "meta": {"type": "OS::Heat::None", "metadata": {"pw": {"get_param": "password"}}},
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
    },
    outputs={
        "derived": {"value": {"get_attr": ["derived", "value"]}},
        "rand": {"value": {"get_attr": ["rand", "value"]}},
    },
    parameters={"password": {"type": "string", "hidden": True}},
)


def raw_rows(url: str) -> str:
    """Every row of every table, as the database holds it (no engine reads them)."""
    raw = create_engine(url)
    try:
        tables = MetaData()
        tables.reflect(raw)
        with raw.connect() as conn:
            return "\n".join(
                repr(tuple(row)) for table in tables.sorted_tables
                for row in conn.execute(select(table))
            )
    finally:
        raw.dispose()


def outputs(engine: Engine, identity: dict[str, str]) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in stack_row(engine, identity).outputs}


def handle_secret(engine: Engine, identity: dict[str, str]) -> str:
    attrs = resources(engine, identity)["handle"].attr_data["attrs"]
    secret = attrs["token"]
    assert isinstance(secret, str) and secret in attrs["endpoint"]
    return secret


def test_nothing_made_from_a_hidden_value_is_stored_or_shown_in_clear(
    engine: Engine, engine_url: str,
) -> None:
    identity = create(engine, TEMPLATE, params={"password": SECRET})
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    made = outputs(engine, identity)
    assert made["derived"] == f"user:{SECRET}"
    token = handle_secret(engine, identity)
    snap = engine.stack_snapshot(CTX, identity, "snap")
    assert wait_state(engine, identity)[:2] == ("SNAPSHOT", "COMPLETE")

    stored = raw_rows(engine_url)
    for clear in (SECRET, token, made["rand"]):
        assert clear not in stored

    shown = json.dumps(engine.show_snapshot(CTX, identity, snap["id"]))
    exported = json.dumps(engine.export_stack(CTX, identity))
    for answer in (shown, exported):
        assert SECRET not in answer and token not in answer and made["rand"] not in answer
        assert "$sealed" in answer

    data = engine.abandon_stack(CTX, identity)
    wait_state(engine, identity)
    abandoned = json.dumps(data)
    assert SECRET not in abandoned and token not in abandoned

    # Adopt on the same deployment opens the sealed values: the outputs are the real ones.
    adopted = engine.create_stack(CTX, "adopted", None, args={"adopt_stack_data": abandoned})
    assert wait_state(engine, adopted)[:2] == ("ADOPT", "COMPLETE")
    assert outputs(engine, adopted) == made
    assert SECRET not in raw_rows(engine_url)


def test_restore_keeps_the_hidden_parameter_encrypted(
    engine: Engine, engine_url: str,
) -> None:
    identity = create(engine, TEMPLATE, params={"password": SECRET})
    wait_state(engine, identity)
    snap = engine.stack_snapshot(CTX, identity, "snap")
    wait_state(engine, identity)
    engine.stack_restore(CTX, identity, snap["id"])
    assert wait_state(engine, identity)[:2] == ("RESTORE", "COMPLETE")
    assert outputs(engine, identity)["derived"] == f"user:{SECRET}"
    assert SECRET not in raw_rows(engine_url)


# --- abandon documents between deployments ---------------------------------------------

HERE = Encryptor.from_key("the key of the deployment that abandoned the stack")
THERE = Encryptor.from_key("the key of another deployment, not the same one")

DOCUMENT = {
    "template": TEMPLATE,
    "environment": {"parameters": {"password": SECRET, "plain": "p"}},
    "resources": {"rand": {"resource_id": "r1", "resource_data": {"value": "xyz"}}},
}


def test_the_same_deployment_opens_what_it_sealed() -> None:
    sealed = seal_payload(DOCUMENT, HERE)
    assert SECRET not in json.dumps(sealed) and "xyz" not in json.dumps(sealed)
    assert sealed["environment"]["parameters"]["plain"] == "p"
    assert adopt_parameters(sealed, None, None, HERE) == {"password": SECRET, "plain": "p"}
    assert open_resources(sealed, HERE)["resources"] == DOCUMENT["resources"]


def test_another_deployment_is_told_which_value_it_cannot_open() -> None:
    sealed = seal_payload(DOCUMENT, HERE)
    with pytest.raises(Invalid, match="environment.parameters.password is encrypted with "
                       "another deployment's key.*give the parameter's value"):
        adopt_parameters(sealed, None, None, THERE)
    # Given with the request (or in its environment), the sealed value is not needed.
    assert adopt_parameters(sealed, {"password": "new"}, None, THERE)["password"] == "new"
    assert adopt_parameters(
        sealed, None, {"parameters": {"password": "env"}}, THERE
    ) == {"plain": "p"}
    with pytest.raises(Invalid, match="resources.rand is encrypted with another"):
        open_resources(sealed, THERE)


def test_without_encryption_hidden_values_are_masked() -> None:
    masked = seal_payload(DOCUMENT, None)
    assert masked["environment"]["parameters"]["password"] == "******"
    # A masked value is no value: the request must give it again.
    assert adopt_parameters(masked, None, None, None) == {"plain": "p"}
