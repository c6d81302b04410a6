"""Secrets in a stack's abandon/export document and in a snapshot as shown.

Heat hands these documents out with hidden parameters and resources' private data in clear.
Here the answer carries them sealed with the deployment's key (``hearth.store.sealing``): the
document still round-trips through adopt on a deployment with the same
``auth_encryption_key``, which unseals them, while whoever reads the document learns nothing.
What is sealed:

- hidden parameters' values (``parameters`` and ``parameter_defaults``);
- when the stack has a hidden parameter, every resource's ``resource_data`` value and
  ``metadata`` (resolved from the template, they may hold it or what is made from it).

Without a hidden parameter they are shown as Heat shows them: what is in resource data (a
snapshot's image id, a handle's secret) is also what the resource's attributes show its owner,
and readers of snapshots (restore tools, tests) read it there.

With encryption switched off there is no key to seal with: hidden values are then masked as
``******`` (adopt needs them given again) and resource data is left as Heat leaves it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.errors import DecryptionFailed, HearthError, Invalid
from hearth.engine.reading.stack_views import hidden_parameter_names
from hearth.store.crypto import Encryptor
from hearth.store.sealing import seal, unseal_tree
from hearth.template.parameters import HIDDEN_VALUE
from hearth.template.template import Template

_PARAMETER_SECTIONS = ("parameters", "parameter_defaults")


def seal_payload(payload: Mapping[str, Any], encryptor: Encryptor | None) -> dict[str, Any]:
    """The document as an API answer gives it (see the module's doc); nested stacks too."""
    out = dict(payload)
    hidden = _hidden_names(payload)
    env = payload.get("environment")
    if isinstance(env, Mapping):
        out["environment"] = _seal_parameters(env, hidden, encryptor)
    resources = payload.get("resources")
    if isinstance(resources, Mapping):
        out["resources"] = {
            name: _seal_resource(entry, bool(hidden), encryptor) if isinstance(
                entry, Mapping) else entry
            for name, entry in resources.items()
        }
    return out


def seal_snapshot(view: Mapping[str, Any], encryptor: Encryptor | None) -> dict[str, Any]:
    """A snapshot as shown: its data (the stack's document) sealed as ``seal_payload`` does."""
    data = view.get("data")
    if not isinstance(data, Mapping):
        return dict(view)
    return {**view, "data": seal_payload(data, encryptor)}


def _hidden_names(payload: Mapping[str, Any]) -> set[str]:
    template, files = payload.get("template"), payload.get("files")
    if not isinstance(template, Mapping):
        return set()
    try:
        return hidden_parameter_names(
            Template(dict(template)), files if isinstance(files, Mapping) else {}
        )
    except (HearthError, ValueError, TypeError):
        return set()  # a template that does not parse declares nothing we could read


def _hide(value: Any, encryptor: Encryptor | None) -> Any:
    return seal(value, encryptor) if encryptor is not None else HIDDEN_VALUE


def _seal_parameters(
    env: Mapping[str, Any], hidden: set[str], encryptor: Encryptor | None
) -> dict[str, Any]:
    out = dict(env)
    for section in _PARAMETER_SECTIONS:
        values = env.get(section)
        if isinstance(values, Mapping):
            out[section] = {
                k: _hide(v, encryptor) if k in hidden else v for k, v in values.items()
            }
    return out


def _seal_resource(
    entry: Mapping[str, Any], stack_has_hidden: bool, encryptor: Encryptor | None
) -> dict[str, Any]:
    if isinstance(entry.get("template"), Mapping):
        # A nested stack's resource is its child's whole document.
        return seal_payload(entry, encryptor)
    out = dict(entry)
    data = entry.get("resource_data")
    if stack_has_hidden and isinstance(data, Mapping) and encryptor is not None:
        out["resource_data"] = {k: seal(v, encryptor) for k, v in data.items()}
    if stack_has_hidden and entry.get("metadata"):
        out["metadata"] = _hide(entry["metadata"], encryptor)
    return out


# --- adopt -------------------------------------------------------------------------------


def adopt_parameters(
    adopt_data: Mapping[str, Any], params: Mapping[str, Any] | None,
    environment: Mapping[str, Any] | str | None, encryptor: Encryptor | None,
) -> dict[str, Any]:
    """The request's parameters for an adopt: the abandoned stack's (Heat's rule) under those
    the request gives (in ``parameters`` or its environment). A sealed value is opened only
    when the request does not give it: on another deployment, hidden values can be given
    again instead."""
    given = dict(params or {})
    inline = environment.get("parameters") if isinstance(environment, Mapping) else None
    given_names = set(given) | (set(inline) if isinstance(inline, Mapping) else set())
    env = adopt_data.get("environment")
    stored = env.get("parameters") if isinstance(env, Mapping) else None
    adopted = {
        name: _open(value, encryptor, f"environment.parameters.{name}")
        for name, value in (stored.items() if isinstance(stored, Mapping) else ())
        # A masked value (abandoned with encryption off) is no value: the request gives it.
        if name not in given_names and value != HIDDEN_VALUE
    }
    return {**adopted, **given}


def open_resources(adopt_data: Mapping[str, Any], encryptor: Encryptor | None) -> dict[str, Any]:
    """The adopt document with its resources' sealed values opened."""
    out = dict(adopt_data)
    resources = adopt_data.get("resources")
    if isinstance(resources, Mapping):
        out["resources"] = {
            name: _open(entry, encryptor, f"resources.{name}")
            for name, entry in resources.items()
        }
    return out


def _open(value: Any, encryptor: Encryptor | None, where: str) -> Any:
    try:
        return unseal_tree(value, encryptor)
    except DecryptionFailed:
        raise Invalid(
            f"Invalid adopt data: {where} is encrypted with another deployment's key. Adopt "
            "it where auth_encryption_key is the key of the deployment that abandoned it"
            + (" (or give the parameter's value with the request)"
               if where.startswith("environment.") else "")
        ) from None
