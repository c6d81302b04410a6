"""Heat's answers of the CFN API: ``{"<Action>Response": {"<Action>Result": ...}}`` as XML
(lists as ``member`` elements, unset values left out) or, with ``ContentType=JSON``,
as JSON. ``TemplateBody`` and ``Metadata`` stay JSON text inside the XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from hearth.api.cfn.errors import CfnError

# Keys whose values are written as JSON text, not as nested elements.
JSON_TEXT_KEYS = frozenset({"TemplateBody", "Metadata"})


def envelope(action: str, result: Any) -> dict[str, Any]:
    return {f"{action}Response": {f"{action}Result": result}}


def _fill(element: ET.Element, value: Any) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if item is None:
                # Heat prints the text "None", which AWS clients cannot read (a timestamp
                # "None" breaks boto3): an unset value is left out, as AWS leaves it out.
                continue
            child = ET.SubElement(element, str(key))
            if key in JSON_TEXT_KEYS:
                child.text = _json_text(item)
            else:
                _fill(child, item)
    elif isinstance(value, list | tuple):
        for item in value:
            _fill(ET.SubElement(element, "member"), item)
    else:
        element.text = str(value)


def _json_text(value: Any) -> str:
    if not value:
        return ""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)


def to_xml(document: Mapping[str, Any]) -> bytes:
    """The document's one top-level key as the root element."""
    (root_name, value), = document.items()
    root = ET.Element(str(root_name))
    _fill(root, value)
    text: bytes = ET.tostring(root, encoding="utf-8")
    return text


def to_json(document: Mapping[str, Any]) -> bytes:
    return json.dumps(document, default=str).encode()


def error_xml(error: CfnError) -> bytes:
    return to_xml({"ErrorResponse": {"Error": {
        "Type": "Sender" if error.kind.sender else "Server",
        "Code": error.kind.code,
        "Message": error.message,
    }}})
