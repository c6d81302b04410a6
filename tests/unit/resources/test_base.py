"""The Resource base class: the contract between plugins and the engine."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from hearth.common.errors import (
    InvalidTemplateAttribute,
    NotSupported,
    ResourceTypeNotFound,
    StackValidationFailed,
)
from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import Resource
from hearth.resources.definition import ValidationScope
from hearth.resources.exceptions import (
    NoActionRequired,
    PollDelay,
    ResourceActionNotSupported,
    UpdateReplace,
    failure_reason,
)
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from tests.unit.resources.fakes import FakeResourceContext, make

S = PropertySchema


class Widget(Resource):
    """Makes widgets.

    The indentation of a docstring is not part of the description.
    """

    properties_schema = {
        "size": S(S.INTEGER, required=True, constraints=[]),
        "colour": {"Type": "String", "AllowedValues": ["red", "blue"]},  # Heat's old form
    }
    update_policy_schema = {"batch": S(S.INTEGER, default=1)}
    attributes_schema = {"info": AttributeSchema("Details.", type=AttributeSchema.MAP)}
    checked: ClassVar[list[str]] = []

    def handle_create(self) -> str:
        self.resource_id_set("w-1")
        return "cookie"

    def check_create_complete(self, cookie: str) -> bool:
        return cookie == "cookie"

    def handle_create_cancel(self, cookie: str) -> None:
        return None

    def handle_signal(self, details: Any) -> str | None:
        if details == "ignore":
            raise NoActionRequired(self.name, "busy")
        return "scaled" if details == "scale" else None

    def handle_snapshot_delete(self, state: Any) -> None:
        return None

    def _resolve_attribute(self, name: str) -> Any:
        return {"size": self.properties["size"], "parts": ["a", "b"]}

    def _show_resource(self) -> Any:
        return {"id": self.resource_id}

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        cls.checked.append(scope.name)
        if properties["size"] > 10:
            raise StackValidationFailed(f"{scope.type_name} is too big")


class Bare(Resource):
    pass


def test_handlers_and_checks_are_discoverable() -> None:
    assert Widget.has_handler("create") and Widget.has_handler("CREATE")
    assert Widget.has_check("create") and not Widget.has_check("delete")
    assert Widget.has_handler("create_cancel")
    assert not Bare.has_handler("create") and not Bare.has_handler("delete")
    # Update and adopt always have a handler: the base ones.
    assert Bare.has_handler("update") and Bare.has_handler("adopt")
    assert not Bare.updates_in_place()


def test_description_comes_from_the_docstring() -> None:
    assert Widget.description() == (
        "Makes widgets.\n\nThe indentation of a docstring is not part of the description."
    )
    assert Bare.description() == "No description available"


def test_every_type_has_show_and_legacy_schemas_are_converted() -> None:
    assert list(Widget.attributes_schema) == ["info", "show"]
    assert list(Bare.attributes_schema) == ["show"]
    assert isinstance(Widget.properties_schema["colour"], PropertySchema)
    assert Widget.attribute_names() == frozenset({"info", "show"})


def test_attributes_follow_paths_and_show_needs_an_id() -> None:
    res, _ = make(Widget, {"size": 3})
    assert res.get_attribute("info", "parts", 1) == "b"
    assert res.get_attribute("info", "size") == 3
    assert res.get_attribute("show") is None
    res.handle_create()
    assert res.get_attribute("show") == {"id": "w-1"}
    with pytest.raises(InvalidTemplateAttribute) as err:
        res.get_attribute("nope")
    assert str(err.value) == "The Referenced Attribute (r nope) is incorrect."


def test_reference_is_the_name_until_there_is_a_physical_id() -> None:
    res, _ = make(Widget, {"size": 3}, name="w")
    assert res.get_reference_id() == "w"
    res.resource_id_set("abc")
    assert res.get_reference_id() == "abc"


def test_base_update_asks_for_replacement_only_when_properties_changed() -> None:
    res, _ = make(Bare, {})
    assert res.handle_update(res.properties, {}, {"Metadata": {}}) is None
    with pytest.raises(UpdateReplace, match="The Resource r requires replacement."):
        res.handle_update(res.properties, {"x": 1}, {})


def test_adopt_takes_id_data_and_metadata() -> None:
    res, ctx = make(Bare, {})
    res.handle_adopt({"resource_id": "phys", "resource_data": {"k": 1}, "metadata": {"m": 2}})
    assert (res.resource_id, ctx.stored, ctx.metadata) == ("phys", {"k": "1"}, {"m": 2})
    with pytest.raises(Exception, match="Resource ID was not provided.") as err:
        res.handle_adopt({})
    assert failure_reason(err.value, "r") == "Exception: resources.r: Resource ID was not provided."


def test_signals() -> None:
    res, _ = make(Widget, {"size": 1})
    assert res.signal("scale") == "Signal: scaled"
    assert res.signal(None) == "No signal details provided"
    assert res.signal("text") == "text"
    assert res.signal({"previous": "ok", "current": "alarm", "reason": "cpu"}) == (
        "alarm state changed from ok to alarm (cpu)"
    )
    assert res.signal({"other": 1}) == "Unknown"
    with pytest.raises(NoActionRequired, match="could not perform scaling action: busy"):
        res.signal("ignore")
    bare, _ = make(Bare, {})
    with pytest.raises(ResourceActionNotSupported) as err:
        bare.signal({})
    assert (str(err.value), err.value.http_status) == ("signal is not supported for resource.", 400)
    with pytest.raises(NotSupported, match="Signal resource during SUSPEND is not supported."):
        Bare.check_signal_allowed("SUSPEND")
    Bare.check_signal_allowed("CREATE")


def test_poll_delay_needs_a_positive_wait() -> None:
    assert PollDelay(2.5).seconds == 2.5
    with pytest.raises(ValueError):
        PollDelay(0)


def test_physical_name_respects_the_type_limit() -> None:
    class Short(Resource):
        physical_resource_name_limit = 12

    ctx = FakeResourceContext(resource_name="resource", stack_name="a-long-stack-name")
    res = Short("resource", "Short", {}, ctx)
    full = ctx.physical_resource_name()
    assert res.physical_resource_name() == f"a--{full[-9:]}"


def test_failure_reasons_read_as_heats() -> None:
    assert failure_reason(ValueError("boom"), "r") == "ValueError: resources.r: boom"
    not_found = ResourceTypeNotFound("The Resource Type (X) could not be found.")
    assert failure_reason(not_found, "web", "Resources") == (
        "StackValidationFailed: Resources.web: The Resource Type (X) could not be found."
    )
    # A member of a group is named by its index.
    assert failure_reason(KeyError("k"), "0") == "KeyError: resources[0]: 'k'"


def validation_error(**kwargs: Any) -> str:
    kwargs.setdefault("type_name", "My::Widget")
    with pytest.raises(StackValidationFailed) as err:
        Widget.validate_definition("w", **kwargs)
    return str(err.value)


def test_definition_errors_carry_the_template_path() -> None:
    assert validation_error(properties_data={"size": "x"}) == (
        "Property error: resources.w.properties.size: Value 'x' is not an integer"
    )
    assert validation_error(properties_data={"size": 1, "colour": "green"}, cfn=True) == (
        'Property error: Resources.w.Properties.colour: "green" is not an allowed value '
        '["red", "blue"]'
    )
    assert validation_error(properties_data={}) == (
        "Property error: resources.w.properties: Property size not assigned"
    )
    assert validation_error(properties_data={"size": 1}, update_policy={"batch": "two"}) == (
        "Property error: resources.w.update_policy.batch: Value 'two' is not an integer"
    )
    assert validation_error(properties_data={"size": 1}, deletion_policy="Forget", cfn=True) == (
        'Resources.w.DeletionPolicy: Invalid deletion policy "Forget"'
    )
    assert validation_error(properties_data={"size": 1}, update_policy={"x": 1}, strict=False) == (
        "Property error: resources.w.update_policy: Unknown Property x"
    )


def test_snapshot_deletion_needs_a_snapshot_handler() -> None:
    Widget.validate_definition("w", {"size": 1}, deletion_policy="Snapshot")
    with pytest.raises(StackValidationFailed) as err:
        Bare.validate_definition("b", {}, deletion_policy="Snapshot")
    assert str(err.value) == 'resources.b.deletion_policy: "Snapshot" deletion policy not supported'


def test_plugin_hook_runs_only_for_stack_validation() -> None:
    Widget.checked.clear()
    Widget.validate_definition("w", {"size": 99}, strict=False)
    assert Widget.checked == []
    # The hook's own error is reported as raised, without a path (as in Heat).
    assert validation_error(properties_data={"size": 99}) == "My::Widget is too big"
    assert Widget.checked == ["w"]


def test_unresolved_properties_satisfy_required_and_skip_checks() -> None:
    Widget.validate_definition("w", {"size": None}, unresolved=frozenset({"size"}))
