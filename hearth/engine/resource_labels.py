"""How Heat's messages name a resource: its ``str()``, e.g. ``TestResource "r" [phys] Stack
"s" [id]`` (hook errors, a timed-out step's reason)."""

from __future__ import annotations


def resource_label(
    plugin_class: type, name: str, physical_id: str | None, stack_name: str, stack_id: str
) -> str:
    # A provider template's class is made per template ("TemplateResource[x.yaml]"); Heat's
    # is TemplateResource for all of them.
    kind = plugin_class.__name__.split("[", 1)[0]
    physical = f" [{physical_id}]" if physical_id else ""
    return f'{kind} "{name}"{physical} Stack "{stack_name}" [{stack_id}]'
