"""The console benchmark's stack: its size and dependency shape (nothing is started)."""

from __future__ import annotations

from bench.console import layered_template
from hearth.resources.registry import PluginRegistry
from hearth.template.validate import validate_template


def test_layered_template_has_layers_times_width_resources_each_on_two_before() -> None:
    template = layered_template(3, 4)
    resources = template["resources"]
    assert len(resources) == 12
    assert "depends_on" not in resources["l0r2"]
    assert resources["l1r3"]["depends_on"] == ["l0r0", "l0r3"]
    assert resources["l2r1"]["depends_on"] == ["l1r1", "l1r2"]
    assert sum(len(r.get("depends_on", [])) for r in resources.values()) == 16


def test_layered_template_is_a_valid_template() -> None:
    plugins = PluginRegistry.load()
    validate_template(layered_template(2, 3), global_env=plugins.global_environment(),
                      type_checker=plugins.type_checker)
