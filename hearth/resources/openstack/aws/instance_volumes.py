"""The ``Volumes`` of an AWS::EC2::Instance: attached through Nova one after the other once
the server is ACTIVE, each waited for until Cinder shows it in use (as Heat does)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hearth.clients.errors import CloudError
from hearth.resources.openstack.cinder.base import Error, request, unknown_status
from hearth.resources.openstack.nova import rest

if TYPE_CHECKING:
    from hearth.resources.openstack.base import CloudResource

Step = dict[str, Any]


def attach_step(volume_id: str, device: str | None) -> Step:
    return {"volume": volume_id, "device": device, "called": False}


def _attach(res: CloudResource, step: Step) -> None:
    # The server as it is now (a create retried after ERROR boots another one).
    server = res.resource_id
    body: dict[str, Any] = {"volumeId": step["volume"]}
    if step["device"]:
        body["device"] = step["device"]
    try:
        rest.nova(res.cloud, "POST", f"/servers/{server}/os-volume_attachments",
                  {"volumeAttachment": body})
    except CloudError as exc:
        raise Error(f"Failed to attach volume {step['volume']} to server {server} - {exc}"
                    ) from exc


def _in_use(res: CloudResource, step: Step) -> bool:
    found = res.cloud.call(request, res.conn.block_storage, "GET", f"/volumes/{step['volume']}",
                           service="block-storage")
    status = found["volume"]["status"]
    if status in ("available", "attaching", "reserved"):
        return False
    if status != "in-use":
        raise unknown_status(status, "Volume attachment failed")
    return True


def run(res: CloudResource, steps: list[Step]) -> bool:
    """One poll: ask for the next attachment not asked for yet, else check the first one
    not known to be in use. True once all are."""
    for step in steps:
        if not step["called"]:
            _attach(res, step)
            step["called"] = True
            return False
    for step in steps:
        if not step.get("done"):
            step["done"] = _in_use(res, step)
            if not step["done"]:
                return False
    return True
