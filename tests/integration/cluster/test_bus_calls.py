"""The engine's calls through oslo.messaging's RPC client and server, on its in-process
``fake://`` driver: every protocol call reaches the engine by name, answers come back as
data, and engine errors keep their type, message and HTTP status."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest

from hearth.common.config import load_config
from hearth.common.context import RequestContext
from hearth.common.errors import EntityNotFound, Forbidden, HearthError, StackValidationFailed
from hearth.engine.engine import Engine
from hearth.rpc import bus
from hearth.rpc.protocol import EngineAPI

CTX = RequestContext(project_id="demo", user_id="u1", roles=("member",), auth_token="tok-1")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    data = tmp_path_factory.mktemp("bus")
    conf = load_config(overrides=[("data_dir", None, str(data)),
                                  ("auth_encryption_key", None, "k" * 32)])
    running = Engine.from_config(conf)
    running.start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def client(engine: Engine) -> Iterator[EngineAPI]:
    conf = load_config()
    bus.register_options(conf)
    conf.set_override("transport_url", "fake:/")
    transport = bus.get_transport(conf)
    server = bus.engine_server(transport, "hearth-test", engine, engine.core.engine_id)
    server.start()
    yield bus.engine_client(transport, "hearth-test")
    server.stop()
    server.wait()
    transport.cleanup()


def test_every_protocol_call_reaches_the_engine_by_name(engine: Engine) -> None:
    # The bus sends arguments by their protocol names: the engine must take each of them.
    for name in sorted(bus.engine_methods()):
        wanted = inspect.signature(getattr(EngineAPI, name))
        params = [p for p in wanted.parameters.values() if p.name not in ("self", "ctx")]
        given = inspect.signature(getattr(engine, name))
        first = (CTX,) if "ctx" in wanted.parameters else ()
        given.bind(*first, **{p.name: None for p in params})


def test_answers_and_the_callers_context_cross(client: EngineAPI) -> None:
    versions = client.list_template_versions(CTX)
    assert {"version": "heat_template_version.2018-08-31", "type": "hot",
            "aliases": ["heat_template_version.rocky"]} in versions
    created = client.create_stack(
        CTX, "on-the-bus",
        {"heat_template_version": "2018-08-31",
         "resources": {"a": {"type": "OS::Heat::None"}}},
        {}, {}, {"timeout_mins": 5},
    )
    assert created["stack_name"] == "on-the-bus"
    assert created["tenant"] == "demo"  # the project the context carried
    shown = client.show_stack(CTX, created)[0]
    assert shown["stack_name"] == "on-the-bus"
    assert shown["timeout_mins"] == 5


def test_engine_errors_keep_type_message_and_status(client: EngineAPI, engine: Engine) -> None:
    with pytest.raises(EntityNotFound) as missing:
        client.show_stack(CTX, {"stack_name": "nope", "stack_id": "x", "tenant": "demo",
                                "path": ""})
    assert missing.value.http_status == 404
    assert str(missing.value) == "The Stack (nope) could not be found."
    template = {"heat_template_version": "2018-08-31",
                "resources": {"x": {"type": "OS::No::Such"}}}
    with pytest.raises(HearthError) as in_process:
        engine.validate_template(CTX, template)
    with pytest.raises(HearthError) as over_the_bus:
        client.validate_template(CTX, template)
    assert "OS::No::Such" in str(over_the_bus.value)
    for error in (in_process.value, over_the_bus.value):
        assert isinstance(error, StackValidationFailed)
    assert type(over_the_bus.value) is type(in_process.value)
    assert str(over_the_bus.value) == str(in_process.value)
    assert over_the_bus.value.heat_type == in_process.value.heat_type
    assert over_the_bus.value.http_status == in_process.value.http_status


def test_error_of_a_class_this_process_lacks_keeps_name_and_status() -> None:
    data = {"module": "hearth.not_here", "class": "NewError", "message": "newer engine",
            "http_status": 409, "heat_type": "NewError", "attrs": {}}
    error = bus.error_from_data(data)
    assert (error.heat_type, error.http_status, str(error)) == ("NewError", 409, "newer engine")
    # Only Hearth's own error classes are made from what the wire says.
    data = {**data, "module": "os", "class": "system"}
    assert isinstance(bus.error_from_data(data), bus.ForeignError)


def test_context_crosses_with_its_token() -> None:
    serializer = bus.ContextSerializer()
    back = serializer.deserialize_context(serializer.serialize_context(CTX))
    assert back == CTX
    assert back.auth_token == "tok-1"


def test_only_an_admin_context_reports_a_service(engine: Engine) -> None:
    with pytest.raises(Forbidden):
        engine.report_service(CTX, "api-1", "hearth-api", "host-a", 5)
    engine.report_service(RequestContext.admin(), "api-1", "hearth-api", "host-a", 5)
    listed = {s["engine_id"]: s for s in engine.list_services(RequestContext.admin())}
    assert listed["api-1"]["binary"] == "hearth-api"
    assert listed["api-1"]["status"] == "up"
    engine.remove_service(RequestContext.admin(), "api-1")
    assert "api-1" not in {s["engine_id"] for s in engine.list_services(RequestContext.admin())}
