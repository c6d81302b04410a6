"""Turning template and environment text into plain data, the way Heat reads it, but safely.

Templates are tried as JSON first and then as YAML; environments are read as YAML only. YAML is
read with PyYAML's safe loader (the C-accelerated one when available), with unquoted dates kept
as strings. On top of what Heat does, the composer here is iterative and guarded: it counts every
node the document stands for (a YAML alias counts as the whole subtree it repeats) and bounds how
deeply lists and maps nest, so that an alias bomb or a pathologically nested document is refused
at once with a one-line error instead of exhausting memory or the stack.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from hearth.common.errors import (
    InvalidEnvironment,
    RequestLimitExceeded,
    TemplateParseError,
)
from hearth.common.unicode_text import ESCAPE_HINT, surrogate_message, surrogate_path
from hearth.template.context import Limits
from hearth.template.versions import VERSION_KEYS

__all__ = [
    "ENVIRONMENT_SECTIONS",
    "TEMPLATE_VERSION_KEYS",
    "check_environment_sections",
    "check_template_size",
    "load_environment_text",
    "load_template_text",
    "parse_template_text",
]

# The top-level keys an environment may have.
ENVIRONMENT_SECTIONS = (
    "parameters",
    "resource_registry",
    "parameter_defaults",
    "encrypted_param_names",
    "event_sinks",
    "parameter_merge_strategies",
)

# A template text must carry one of these keys at its top level.
TEMPLATE_VERSION_KEYS = VERSION_KEYS

_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_ROOT_STACK = "[root stack]"
_NOT_A_MAPPING = "The template is not a JSON object or YAML mapping."
_ENV_NOT_A_MAPPING = "The environment is not a valid YAML mapping data type."


# --- YAML loaders -------------------------------------------------------------------------------


class _Guard:
    """How much a document may stand for; set on each loader instance before it composes."""

    def __init__(self, limits: Limits, what: str) -> None:
        self.max_nodes = limits.max_yaml_nodes
        self.max_depth = limits.max_nesting_depth
        # What is being read, for messages: "template [root stack]", "environment".
        self.what = what


class _Frame:
    """A list or map being composed."""

    __slots__ = ("anchor", "height", "is_map", "key", "node", "size")

    def __init__(self, node: Node, is_map: bool, anchor: str | None) -> None:
        self.node = node
        self.is_map = is_map
        self.anchor = anchor
        self.key: Node | None = None
        # Nodes in this subtree with aliases expanded (itself included), and how many levels
        # of lists/maps it spans (itself included).
        self.size = 1
        self.height = 1


def _where(mark: Any) -> str:
    if mark is None:
        return ""
    return f" at line {mark.line + 1}, column {mark.column + 1}"


class _GuardedComposer:
    """An iterative replacement for PyYAML's recursive composer, with size and depth bounds.

    It consumes the parser's events (from libyaml or from PyYAML's pure parser, both of which
    are state machines rather than recursive) and reports the same composer errors as PyYAML.
    """

    # Provided by the PyYAML classes this is mixed into.
    get_event: Any
    check_event: Any
    resolve: Any

    hearth_guard: _Guard

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)  # type: ignore[misc]
        except (ValueError, TypeError, OverflowError) as exc:
            # e.g. an integer with more digits than Python converts
            raise TemplateParseError(
                f"Error parsing {self.hearth_guard.what}: {exc}{_where(node.start_mark)}"
            ) from None

    def get_single_node(self) -> Node | None:
        self.get_event()  # STREAM-START
        document: Node | None = None
        if not self.check_event(StreamEndEvent):
            self.get_event()  # DOCUMENT-START
            document = self._compose_root()
            self.get_event()  # DOCUMENT-END
        if not self.check_event(StreamEndEvent):
            event = self.get_event()
            raise yaml.composer.ComposerError(
                "expected a single document in the stream",
                document.start_mark if document is not None else None,
                "but found another document",
                event.start_mark,
            )
        self.get_event()  # STREAM-END
        return document

    def _compose_root(self) -> Node:
        guard = self.hearth_guard
        max_nodes = guard.max_nodes
        max_depth = guard.max_depth
        what = guard.what
        anchors: dict[str, Node] = {}
        # (size, height) of every finished anchored node; an anchor that is in ``anchors`` but
        # not here belongs to a node still being composed.
        finished: dict[str, tuple[int, int]] = {}
        stack: list[_Frame] = []
        total = 0

        while True:
            # Any: libyaml's and PyYAML's events carry different Mark classes.
            event: Any = self.get_event()
            mark: Any = event.start_mark
            end_mark: Any = event.end_mark
            node: Node
            size: int
            height: int
            if isinstance(event, SequenceEndEvent | MappingEndEvent):
                frame = stack.pop()
                node = frame.node
                node.end_mark = end_mark
                size, height = frame.size, frame.height
                if frame.anchor is not None:
                    finished[frame.anchor] = (size, height)
            elif isinstance(event, AliasEvent):
                anchor = event.anchor
                if anchor not in anchors:
                    raise yaml.composer.ComposerError(
                        None, None, f"found undefined alias {anchor!r}", mark
                    )
                if anchor not in finished:
                    raise TemplateParseError(
                        f"Error parsing {what}: alias *{anchor} refers to a node that "
                        f"contains it{_where(mark)}"
                    )
                node = anchors[anchor]
                size, height = finished[anchor]
                total += size
                if total > max_nodes:
                    raise TemplateParseError(
                        f"Error parsing {what}: the document has more than {max_nodes} "
                        f"nodes once YAML aliases are expanded{_where(mark)}"
                    )
                if len(stack) + height > max_depth:
                    raise TemplateParseError(
                        f"Error parsing {what}: lists and maps are nested more than "
                        f"{max_depth} levels deep (through an alias){_where(mark)}"
                    )
            else:
                anchor = event.anchor
                if anchor is not None and anchor in anchors:
                    raise yaml.composer.ComposerError(
                        f"found duplicate anchor {anchor!r}; first occurrence",
                        anchors[anchor].start_mark,
                        "second occurrence",
                        mark,
                    )
                total += 1
                if total > max_nodes:
                    raise TemplateParseError(
                        f"Error parsing {what}: the document has more than {max_nodes} "
                        f"nodes{_where(mark)}"
                    )
                tag = event.tag
                if isinstance(event, ScalarEvent):
                    if tag is None or tag == "!":
                        tag = self.resolve(ScalarNode, event.value, event.implicit)
                    node = ScalarNode(tag, event.value, mark, end_mark, style=event.style)
                    size, height = 1, 0
                    if anchor is not None:
                        anchors[anchor] = node
                        finished[anchor] = (size, height)
                else:  # the start of a list or a map
                    is_map = isinstance(event, MappingStartEvent)
                    node_cls: Any = MappingNode if is_map else SequenceNode
                    if tag is None or tag == "!":
                        tag = self.resolve(node_cls, None, event.implicit)
                    node = node_cls(tag, [], mark, None, flow_style=event.flow_style)
                    if anchor is not None:
                        anchors[anchor] = node
                    stack.append(_Frame(node, is_map, anchor))
                    if len(stack) > max_depth:
                        raise TemplateParseError(
                            f"Error parsing {what}: lists and maps are nested more than "
                            f"{max_depth} levels deep{_where(mark)}"
                        )
                    continue

            if not stack:
                return node
            parent = stack[-1]
            parent.size += size
            if height + 1 > parent.height:
                parent.height = height + 1
            if not parent.is_map:
                parent.node.value.append(node)
            elif parent.key is None:
                parent.key = node
            else:
                parent.node.value.append((parent.key, node))
                parent.key = None


def _construct_plain_string(loader: yaml.SafeLoader, node: ScalarNode) -> Any:
    return loader.construct_scalar(node)


def _resolvers_without_timestamps(
    resolvers: dict[Any, list[tuple[str, Any]]],
) -> dict[Any, list[tuple[str, Any]]]:
    return {
        first: [(tag, regexp) for tag, regexp in entries if tag != _TIMESTAMP_TAG]
        for first, entries in resolvers.items()
    }


_CBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _FastLoader(_GuardedComposer, _CBase):  # type: ignore[misc,valid-type]
    """The safe loader on libyaml (when present), dates as strings, guarded composition."""

    yaml_implicit_resolvers = _resolvers_without_timestamps(_CBase.yaml_implicit_resolvers)


class _PureLoader(_GuardedComposer, yaml.SafeLoader):
    """The same in pure Python; its errors quote the offending text (as Heat reports them)."""

    yaml_implicit_resolvers = _resolvers_without_timestamps(yaml.SafeLoader.yaml_implicit_resolvers)


# An explicit ``!!timestamp`` is kept as written too.
_FastLoader.add_constructor(_TIMESTAMP_TAG, _construct_plain_string)
_PureLoader.add_constructor(_TIMESTAMP_TAG, _construct_plain_string)


def _yaml_load(text: str, loader_cls: type[Any], limits: Limits, what: str) -> Any:
    loader = loader_cls(text)
    loader.hearth_guard = _Guard(limits, what)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def _load_yaml_checked(
    text: str, limits: Limits, what: str
) -> tuple[bool, Any, yaml.YAMLError | None]:
    """Load YAML; on a syntax error load again in pure Python for its more telling message.

    Returns (loaded by the fast loader, data, error).
    """
    try:
        return True, _yaml_load(text, _FastLoader, limits, what), None
    except yaml.YAMLError:
        pass
    try:
        return False, _yaml_load(text, _PureLoader, limits, what), None
    except yaml.YAMLError as exc:
        return False, None, exc


def _construction_failure(what: str, exc: BaseException) -> TemplateParseError:
    # A safety net: the loaders already turn construction failures into TemplateParseError.
    if isinstance(exc, RecursionError):
        return TemplateParseError(f"Error parsing {what}: the document is nested too deeply")
    return TemplateParseError(f"Error parsing {what}: {exc}")


# --- JSON ---------------------------------------------------------------------------------------


def too_deep(data: Any, max_depth: int) -> bool:
    """Whether lists/maps in decoded JSON nest more than ``max_depth`` levels (iteratively)."""
    if not isinstance(data, dict | list):
        return False
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > max_depth:
            return True
        for child in value.values() if isinstance(value, dict) else value:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return False


def check_decoded_depth(data: Any, limits: Limits, what: str = "template") -> None:
    """A template (or environment) that came decoded (a JSON request body) is held to the
    nesting limit a YAML one is parsed under."""
    if too_deep(data, limits.max_nesting_depth):
        raise TemplateParseError(
            f"Error parsing {what}: lists and maps are nested more than "
            f"{limits.max_nesting_depth} levels deep"
        )


# --- templates ----------------------------------------------------------------------------------


def _refuse_surrogates(text: str, data: Any, what: str) -> None:
    """A "\\ud800" escape reads as a str no UTF-8 encoder takes: storing it would fail."""
    if ESCAPE_HINT.search(text):
        where = surrogate_path(data)
        if where is not None:
            raise TemplateParseError(f"Error parsing {what}: {surrogate_message(where)}")


def check_template_size(text: str, limits: Limits) -> None:
    """Heat's raw size limit; like Heat, the length is counted in characters."""
    actual = len(text)
    if actual > limits.max_template_size:
        raise RequestLimitExceeded(
            f"Template size ({actual} bytes) exceeds maximum allowed size "
            f"({limits.max_template_size} bytes)."
        )


def _as_text(text: str | bytes, what: str) -> str:
    if isinstance(text, bytes):
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TemplateParseError(f"Error parsing {what}: {exc}") from None
    return text


def parse_template_text(
    text: str | bytes, limits: Limits | None = None, *, url: str | None = None
) -> dict[Any, Any]:
    """Parse JSON or YAML text that must be a mapping, without the size and version checks.

    ``url`` names the template in error messages (Heat says ``[root stack]`` when there is
    none). This is what Heat applies to adopt data.
    """
    limits = limits or Limits()
    name = url if url is not None else _ROOT_STACK
    what = f"template {name}"
    text = _as_text(text, what)
    data: Any
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        # Not JSON, or JSON nested too deeply for the decoder: the guarded YAML reader will
        # either read it or say where it goes wrong.
        try:
            fast, data, error = _load_yaml_checked(text, limits, what)
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            raise _construction_failure(what, exc) from None
        if error is not None:
            # Heat's wording, which carries the line and column (and a snippet).
            raise TemplateParseError(f"Error parsing template {name} {error}") from None
        if fast and data is None:
            data = {}
    else:
        if too_deep(data, limits.max_nesting_depth):
            # Read it again as YAML (JSON nearly always is) to say where; this fails.
            try:
                _yaml_load(text, _FastLoader, limits, what)
            except TemplateParseError as located:
                raise located from None
            except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError):
                pass
            raise TemplateParseError(
                f"Error parsing {what}: lists and maps are nested more than "
                f"{limits.max_nesting_depth} levels deep"
            )
    if not isinstance(data, dict):
        raise TemplateParseError(_NOT_A_MAPPING)
    _refuse_surrogates(text, data, what)
    return data


def load_template_text(
    text: str | bytes,
    limits: Limits | None = None,
    *,
    url: str | None = None,
    require_version: bool = True,
) -> dict[Any, Any]:
    """Read a template as Heat's ``template_format.parse`` does, with Hearth's safety bounds.

    Checks the size limit (RequestLimitExceeded), parses JSON then YAML (TemplateParseError
    for text that is neither, is not a mapping, or is unsafe to load) and, unless
    ``require_version`` is false, that one of the template version keys is present.
    """
    limits = limits or Limits()
    if isinstance(text, bytes):
        text = _as_text(text, f"template {url if url is not None else _ROOT_STACK}")
    check_template_size(text, limits)
    data = parse_template_text(text, limits, url=url)
    if require_version and not any(key in data for key in TEMPLATE_VERSION_KEYS):
        raise TemplateParseError("Template format version not found.")
    return data


# --- environments -------------------------------------------------------------------------------


def check_environment_sections(env: Mapping[Any, Any]) -> dict[Any, Any]:
    """Heat's check of an environment's top level: known sections only, none of them null."""
    for section, value in env.items():
        if section not in ENVIRONMENT_SECTIONS:
            raise InvalidEnvironment(f'environment has wrong section "{section}"')
        if value is None:
            raise InvalidEnvironment(f'environment has empty section "{section}"')
    return dict(env)


def load_environment_text(text: str | bytes | None, limits: Limits | None = None) -> dict[Any, Any]:
    """Read an environment as Heat's ``environment_format.parse`` does (YAML only), safely.

    No text, empty text or a null document is an empty environment. A YAML error or an unsafe
    document is a TemplateParseError; a document that is not a mapping, or has an unknown or
    null section, is an InvalidEnvironment.
    """
    if text is None:
        return {}
    limits = limits or Limits()
    what = "environment"
    text = _as_text(text, what)
    try:
        fast, env, error = _load_yaml_checked(text, limits, what)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise _construction_failure(what, exc) from None
    if error is not None:
        raise TemplateParseError(str(error)) from None
    if fast and env is None:
        env = {}
    if not isinstance(env, dict):
        raise InvalidEnvironment(_ENV_NOT_A_MAPPING)
    _refuse_surrogates(text, env, what)
    return check_environment_sections(env)
