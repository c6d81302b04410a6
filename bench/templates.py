"""The benchmark's stacks: one template (plus ``files``) per shape and size. Pure: no I/O.

Shapes (``-n`` means):

- ``independent``: ``n`` resources ``r0``..``r{n-1}``, no dependencies.
- ``chain``: ``n`` resources, each ``depends_on`` the previous one (the names of
  ../shared/anchor/bench_heat.py, so that Heat gets the very same template).
- ``tree``: a fan-in tree of depth 4 (levels 0..3); ``n`` is the fan-out: every resource
  above the leaves ``depends_on`` its ``n`` children, so the leaves are created first and the
  root last. Resources: 1 + n + n^2 + n^3 (n = 10: 1,111).
- ``group``: one ``OS::Heat::ResourceGroup`` of ``n`` members (a nested stack of ``n``
  resources). Resources: n + 1.
- ``nested``: a tree of provider templates of depth 5 through ``files``: the top template and
  the templates of levels 1..4 each hold ``n`` resources of the next level's template, the
  level-5 template holds ``n`` plain resources. Stacks: 1 + n + ... + n^5, resources:
  n + n^2 + ... + n^6 (n = 2: 63 stacks, 126 resources; n = 3: 364 stacks, 1,092 resources).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

HOT_VERSION = "2021-04-16"
SHAPES = ("independent", "chain", "tree", "group", "nested")
# blocking: bench/plugins/blocking.py, 200 ms blocked in each create and delete handler.
TYPES = {"none": "OS::Heat::None", "random": "OS::Heat::RandomString",
         "blocking": "Bench::Blocking"}
GROUP_TYPE = "OS::Heat::ResourceGroup"
TREE_DEPTH = 4
NESTED_DEPTH = 5
DEFAULT_N = {"independent": 100, "chain": 100, "tree": 10, "group": 100, "nested": 2}


@dataclass(frozen=True)
class Case:
    """One benchmark case: what is sent to the engine, and how big it is."""

    shape: str
    n: int
    kind: str
    template: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)
    resources: int = 0
    stacks: int = 1
    edges: int = 0
    requires: tuple[str, ...] = ()

    @property
    def resource_type(self) -> str:
        return TYPES[self.kind]

    @property
    def label(self) -> str:
        return f"{self.shape} n={self.n} ({self.kind})"


def _hot(resources: dict[str, Any]) -> dict[str, Any]:
    return {"heat_template_version": HOT_VERSION, "resources": resources}


def _plain(kind: str) -> dict[str, Any]:
    return {"type": TYPES[kind]}


def independent(n: int, kind: str = "none") -> Case:
    resources = {f"r{i}": _plain(kind) for i in range(n)}
    return Case("independent", n, kind, _hot(resources), resources=n)


def chain(n: int, kind: str = "none") -> Case:
    resources: dict[str, Any] = {}
    for i in range(n):
        defn = _plain(kind)
        if i > 0:
            defn["depends_on"] = [f"r{i - 1}"]
        resources[f"r{i}"] = defn
    return Case("chain", n, kind, _hot(resources), resources=n, edges=max(n - 1, 0))


def tree(n: int, kind: str = "none", depth: int = TREE_DEPTH) -> Case:
    """Level ``k`` has n**k resources ``t{k}_{i}``; ``t{k}_{i}`` depends on ``t{k+1}_{i*n+j}``."""
    resources: dict[str, Any] = {}
    edges = 0
    for level in range(depth):
        for i in range(n**level):
            defn = _plain(kind)
            if level < depth - 1:
                defn["depends_on"] = [f"t{level + 1}_{i * n + j}" for j in range(n)]
                edges += n
            resources[f"t{level}_{i}"] = defn
    return Case("tree", n, kind, _hot(resources), resources=len(resources), edges=edges)


def group(n: int, kind: str = "none") -> Case:
    resources = {
        "group": {
            "type": GROUP_TYPE,
            "properties": {"count": n, "resource_def": _plain(kind)},
        }
    }
    return Case(
        "group", n, kind, _hot(resources), resources=n + 1, stacks=2, requires=(GROUP_TYPE,)
    )


def nested_file(level: int) -> str:
    return f"level{level}.yaml"


def nested(n: int, kind: str = "none", depth: int = NESTED_DEPTH) -> Case:
    files: dict[str, str] = {}
    for level in range(1, depth + 1):
        if level == depth:
            body = {f"r{i}": _plain(kind) for i in range(n)}
        else:
            body = {f"s{i}": {"type": nested_file(level + 1)} for i in range(n)}
        files[nested_file(level)] = json.dumps(_hot(body))
    top = _hot({f"s{i}": {"type": nested_file(1)} for i in range(n)})
    stacks = sum(n**k for k in range(depth + 1))
    resources = sum(n**k for k in range(1, depth + 2))
    return Case("nested", n, kind, top, files=files, resources=resources, stacks=stacks)


BUILDERS = {
    "independent": independent,
    "chain": chain,
    "tree": tree,
    "group": group,
    "nested": nested,
}


def build_case(shape: str, n: int | None = None, kind: str = "none") -> Case:
    if shape not in BUILDERS:
        raise ValueError(f"unknown shape {shape!r} (one of {', '.join(SHAPES)})")
    if kind not in TYPES:
        raise ValueError(f"unknown type {kind!r} (one of {', '.join(TYPES)})")
    size = DEFAULT_N[shape] if n is None else n
    if size < 1:
        raise ValueError("-n must be at least 1")
    return BUILDERS[shape](size, kind)
