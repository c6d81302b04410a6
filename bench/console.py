"""``python -m bench console``: how long the web console's stack page takes to show the
topology of a 1,000-resource stack in headless Chromium.

A ``hearth serve`` subprocess gets a stack of ``--layers`` x ``--width`` OS::Heat::None
resources, each depending on two of the layer before; then Chromium opens the stack's
topology page from scratch ``--runs`` times. Each run's figure is the time from the start of
navigation to the graph drawn and painted (page, scripts, API calls, layout, SVG), read in the
page; the layout and SVG-building parts are given apart.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.api_run import PROJECT, heat_client, serving
from bench.lifecycle import split_status, wait_settled
from bench.templates import HOT_VERSION, TYPES

PAGE_TIMEOUT_S = 60.0


def layered_template(layers: int, width: int) -> dict[str, Any]:
    """``layers`` x ``width`` resources; each one after the first layer depends on two of the
    layer before it (its own column and the next), so the graph is wide and deep at once."""
    resources: dict[str, Any] = {}
    for layer in range(layers):
        for col in range(width):
            body: dict[str, Any] = {"type": TYPES["none"]}
            if layer:
                body["depends_on"] = sorted({f"l{layer - 1}r{col}",
                                             f"l{layer - 1}r{(col + 1) % width}"})
            resources[f"l{layer}r{col}"] = body
    return {"heat_template_version": HOT_VERSION, "resources": resources}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench console", description=__doc__)
    p.add_argument("--layers", type=int, default=20)
    p.add_argument("--width", type=int, default=50)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--json", action="store_true", help="end with one line of JSON")
    p.add_argument("--screenshot", type=Path, help="PNG of the page after the last run")
    return p


def measure(url: str, stack_name: str, stack_id: str, expect_nodes: int,
            screenshot: Path | None = None) -> dict[str, float]:
    """One fresh load of the topology page: milliseconds from navigation start."""
    from tests.integration.console.browser import chromium

    with chromium() as driver:
        driver.get(f"{url}/console#/login")
        driver.execute_script("sessionStorage.setItem('hearth-console-session',"
                              " JSON.stringify({project: arguments[0]}))", PROJECT)
        driver.get("about:blank")
        driver.get(f"{url}/console#/stack/{stack_name}/{stack_id}/topology")
        deadline = time.monotonic() + PAGE_TIMEOUT_S
        while True:
            got = driver.execute_script("return window.hearthTopology || null")
            if got and got.get("paintedAt") and got["nodes"] == expect_nodes:
                if screenshot is not None:
                    driver.save_screenshot(str(screenshot))
                return {k: float(got[k]) for k in ("paintedAt", "layoutMs", "renderMs")}
            if time.monotonic() > deadline:
                raise RuntimeError(f"the topology did not show {expect_nodes} nodes: {got}")
            time.sleep(0.02)


def run(args: argparse.Namespace) -> dict[str, Any]:
    template = layered_template(args.layers, args.width)
    count = len(template["resources"])
    with tempfile.TemporaryDirectory(prefix="hearth-bench-console-") as tmp, serving(
        Path(tmp)
    ) as server:
        heat = heat_client(server.endpoint)
        name = f"console-{uuid.uuid4().hex[:8]}"
        stack_id = heat.stacks.create(stack_name=name, template=template)["stack"]["id"]

        def read() -> tuple[str, str, str]:
            stack = heat.stacks.get(stack_id, resolve_outputs=False)
            action, status = split_status(str(stack.stack_status))
            return (action, status, str(stack.stack_status_reason or ""))

        state, _ = wait_settled(read, "CREATE", poll=0.2, timeout=600)
        if state[1] != "COMPLETE":
            raise RuntimeError(f"the stack did not create: {state}")
        runs = [measure(server.url, name, stack_id, count,
                        args.screenshot if i == args.runs - 1 else None)
                for i in range(args.runs)]
    return {
        "resources": count,
        "edges": sum(len(r.get("depends_on", [])) for r in template["resources"].values()),
        "runs": runs,
        "median_page_ms": statistics.median(r["paintedAt"] for r in runs),
        "median_layout_ms": statistics.median(r["layoutMs"] for r in runs),
        "median_svg_ms": statistics.median(r["renderMs"] for r in runs),
    }


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    result = run(args)
    print(f"console topology, {result['resources']} resources, {result['edges']} edges, "
          f"{args.runs} fresh page loads in headless Chromium (median): page shown in "
          f"{result['median_page_ms']:.0f} ms (layout {result['median_layout_ms']:.1f} ms, "
          f"SVG {result['median_svg_ms']:.1f} ms)")
    if args.json:
        print(json.dumps(result, sort_keys=True))
    return 0
