"""Attaching a volume to a server and detaching it, as Heat does: through Nova's
os-volume_attachments, then waiting until Cinder (and, on detach, Nova too) agrees.

Each function is one poll of a step (see ``CinderResource.run_steps``): it answers whether
the step is done. Steps are JSON dicts carrying the server, volume and attachment ids.
"""

from __future__ import annotations

from typing import Any

from hearth.clients.errors import CloudError, is_conflict, is_not_found, status_of
from hearth.resources.openstack.cinder.base import (
    CinderResource,
    Error,
    Step,
    request,
    unknown_status,
)


def nova(res: CinderResource, method: str, path: str, body: Any = None) -> Any:
    return res.call(request, res.conn.compute, method, path, body)


def volume_status(res: CinderResource, volume_id: str) -> dict[str, Any] | None:
    """The volume as Cinder shows it, or None when it is gone."""
    try:
        return dict(res.api("GET", f"/volumes/{volume_id}")["volume"])
    except Exception as exc:
        if is_not_found(exc):
            return None
        raise


def attach(res: CinderResource, step: Step) -> bool:
    """Ask Nova to attach; the attachment's id goes into the step (``attachment``)."""
    server, volume = step["server"], step["volume"]
    body: dict[str, Any] = {"volumeId": volume}
    if step.get("device"):
        body["device"] = step["device"]
    try:
        found = nova(res, "POST", f"/servers/{server}/os-volume_attachments",
                     {"volumeAttachment": body})
    except CloudError as exc:
        raise Error(f"Failed to attach volume {volume} to server {server} - {exc}") from exc
    step["attachment"] = str(found["volumeAttachment"]["id"])
    return True


def attached(res: CinderResource, step: Step) -> bool:
    vol = volume_status(res, step["volume"])
    status = vol["status"] if vol is not None else "deleted"
    if status in ("available", "attaching", "reserved"):
        return False
    if status != "in-use":
        raise unknown_status(status, "Volume attachment failed")
    return True


def detach(res: CinderResource, step: Step) -> bool:
    """Ask Nova to detach. A conflict (the volume is busy) is retried; an attachment Nova
    no longer has counts as detached."""
    server, attachment = step["server"], step["attachment"]
    try:
        nova(res, "DELETE", f"/servers/{server}/os-volume_attachments/{attachment}")
    except Exception as exc:
        if is_conflict(exc):
            return False
        if not (is_not_found(exc) or status_of(exc) == 400):
            raise Error(
                f"Could not detach attachment {attachment} from server {server}."
            ) from exc
    return True


def cinder_detached(res: CinderResource, step: Step) -> bool:
    vol = volume_status(res, step["volume"])
    if vol is None:
        return True
    servers = [a.get("server_id") for a in vol.get("attachments") or []]
    if step["server"] not in servers:
        return True
    status = vol["status"]
    if status in ("in-use", "detaching", "reserved"):
        return False
    if status not in ("available", "deleting"):
        raise unknown_status(status, "Volume detachment failed")
    return True


def nova_detached(res: CinderResource, step: Step) -> bool:
    """Nova forgets an attachment a little after Cinder: reattaching earlier fails."""
    server, attachment = step["server"], step["attachment"]
    try:
        nova(res, "GET", f"/servers/{server}/os-volume_attachments/{attachment}")
    except Exception as exc:
        if is_not_found(exc):
            return True
        raise
    return False


def detach_steps(server: str, volume: str, attachment: str) -> list[Step]:
    where = {"server": server, "volume": volume, "attachment": attachment}
    return [{"op": op, **where} for op in ("detach", "cinder_detached", "nova_detached")]


def attach_steps(server: str, volume: str, device: str | None) -> list[Step]:
    # One dict for both: ``attach`` records the attachment id that ``attached`` keeps.
    return [{"op": "attach", "server": server, "volume": volume, "device": device},
            {"op": "attached", "server": server, "volume": volume}]


OPS = {
    "attach": attach,
    "attached": attached,
    "detach": detach,
    "cinder_detached": cinder_detached,
    "nova_detached": nova_detached,
}
