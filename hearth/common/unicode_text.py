"""UTF-16 surrogates in decoded data: JSON's lone ``"\\ud800"`` and YAML's double-quoted
``"\\ud800"`` decode to a str that no UTF-8 encoder accepts, so such data can be neither stored
nor answered. Callers refuse it where it comes in, naming where it is."""

from __future__ import annotations

import re
from typing import Any

# An escape that may decode to a surrogate (JSON's \uD8xx-\uDFxx, YAML's also \U0000D8xx):
# text without one cannot hold a surrogate, and is not walked.
ESCAPE_HINT = re.compile(r"\\(u|U0000)[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_path(data: Any) -> str | None:
    """The dotted path of the first key or string in ``data`` holding a surrogate, or None
    when there is none. Iterative: the data may be nested as deep as its decoder let it."""
    pending: list[tuple[Any, str]] = [(data, "")]
    while pending:
        value, path = pending.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return path or "the value"
        elif isinstance(value, dict):
            for key, child in value.items():
                where = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and _SURROGATE.search(key):
                    return where
                pending.append((child, where))
        elif isinstance(value, list):
            pending.extend((child, f"{path}[{i}]") for i, child in enumerate(value))
    return None


def surrogate_message(path: str) -> str:
    # the path itself may hold the surrogate: it is shown escaped
    shown = path.encode("utf-8", "backslashreplace").decode("utf-8")
    return (f"{shown} holds a UTF-16 surrogate (an escape such as \\ud800), which is not a "
            "character UTF-8 can encode")
