"""The steps of a server update that Nova carries out in the background.

An in-place update is a list of steps run in order (Heat's ``ServerUpdateProgress`` list):
resize then confirm, rebuild, detach and attach of interfaces. Each step is plain JSON in the
update's cookie, started once (``called``) and polled until ``done``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.clients.errors import ResourceUnknownStatus
from hearth.common.errors import HearthError
from hearth.resources.openstack.nova import rest, server_interfaces
from hearth.resources.openstack.nova.server_networks import Ports, stored_ports

Step = dict[str, Any]


class Error(HearthError):
    """Heat's generic ``Error`` (its type name is what status reasons show)."""


def status_of(server: Mapping[str, Any]) -> str:
    # Some clouds append "(...)" to the status.
    return str(server.get("status") or "").split("(")[0]


def task_state(server: Mapping[str, Any]) -> str | None:
    state = server.get("OS-EXT-STS:task_state")
    return str(state) if state else None


def resize_steps(flavor_id: str) -> list[Step]:
    return [
        {"op": "resize", "flavor": flavor_id, "called": False, "done": False},
        {"op": "confirm_resize", "called": False, "done": False},
    ]


def rebuild_step(image_id: str, *, password: str | None = None,
                 preserve_ephemeral: bool = False, metadata: dict[str, str] | None = None,
                 user_data: str | None = None) -> Step:
    args: dict[str, Any] = {"imageRef": image_id}
    if password:
        args["adminPass"] = password
    if preserve_ephemeral:
        args["preserve_ephemeral"] = True
    if metadata is not None:
        args["metadata"] = metadata
    if user_data is not None:
        args["user_data"] = user_data
    return {"op": "rebuild", "args": args, "called": False, "done": False}


def start(ports: Ports, server_id: str, step: Step) -> None:
    op = step["op"]
    cloud = ports.cloud
    if op == "resize":
        rest.server_action(cloud, server_id, "resize", {"flavorRef": step["flavor"]})
    elif op == "confirm_resize":
        server = rest.nova(cloud, "GET", f"/servers/{server_id}")["server"]
        if status_of(server) != "VERIFY_RESIZE":
            raise ResourceUnknownStatus(
                f"Could not confirm resize of server {server_id} - Unknown status "
                f"{status_of(server)} due to \"Unknown\""
            )
        rest.server_action(cloud, server_id, "confirmResize", None)
    elif op == "rebuild":
        rest.server_action(cloud, server_id, "rebuild", step["args"])
    elif op == "detach":
        server_interfaces.start_detach(ports, server_id, step)
    elif op == "attach":
        server_interfaces.start_attach(ports, server_id, step)


def done(ports: Ports, server: Mapping[str, Any], step: Step) -> bool:
    op, status = step["op"], status_of(server)
    if op == "resize":
        if status == "ACTIVE" and not task_state(server) and _resize_failed(ports, server):
            # Nova gave up (no host for the new flavor) and left the server as it was:
            # Heat would wait for VERIFY_RESIZE until the stack times out.
            raise Error(f"Resizing to '{step['flavor']}' failed, status '{status}'")
        if status in ("RESIZE", "ACTIVE"):
            return False
        if status == "VERIFY_RESIZE":
            return True
        raise Error(f"Resizing to '{step['flavor']}' failed, status '{status}'")
    if op == "confirm_resize":
        if status == "ACTIVE":
            return True
        if status == "VERIFY_RESIZE" or "resize" in (task_state(server) or ""):
            return False
        raise ResourceUnknownStatus(
            f"Confirm resize for server {server['id']} failed - Unknown status {status} "
            "due to \"Unknown\""
        )
    if op == "rebuild":
        if status == "REBUILD" or task_state(server) in ("rebuilding", "rebuild_spawning",
                                                         "rebuild_block_device_mapping"):
            return False
        if status == "ERROR":
            raise Error(f"Rebuilding server failed, status '{status}'")
        return True
    if op == "detach":
        finished = server_interfaces.detach_done(ports, server, step)
        if finished and step["port"] in stored_ports(ports.resource):
            # Only now: deleting a port Nova still holds confuses its network info cache.
            ports.delete_internal(step["port"])
        return finished
    return server_interfaces.attach_done(ports, server, step)


# How many of a server's newest instance actions are read for the resize: others may come
# after it (a volume extended in the same update records "extend_volume" a moment later).
_RECENT_ACTIONS = 10


def _resize_failed(ports: Ports, server: Mapping[str, Any]) -> bool:
    """Nova's newest resize of the server (among its recent actions) ended in error."""
    found = rest.nova(ports.cloud, "GET", f"/servers/{server['id']}/os-instance-actions",
                      params={"limit": _RECENT_ACTIONS})
    actions = (found or {}).get("instanceActions") or []
    resize = next((a for a in actions if a.get("action") == "resize"), None)
    return resize is not None and resize.get("message") == "Error"
