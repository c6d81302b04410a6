"""The steps of an in-place volume update that wait on Cinder: retype, restore from a
backup, extend, read-only flag. Each is one poll of a step (``CinderResource.run_steps``)
and answers whether the step is done; the detach and reattach around them are in
``attach``."""

from __future__ import annotations

from hearth.resources.openstack.cinder.base import CinderResource, Error, Step, unknown_status

# Extending an attached volume needs this microversion (Heat uses it when Cinder has it).
EXTEND_IN_USE = "volume 3.42"


def set_read_only(res: CinderResource, flag: bool) -> None:
    res.api("POST", f"/volumes/{res.resource_id}/action",
            {"os-update_readonly_flag": {"readonly": flag}})
    res.refresh()  # the flag shows in the metadata: read the volume again


def _status(res: CinderResource) -> str:
    return str(res.refresh()["status"])


def retyped(res: CinderResource, step: Step) -> bool:
    return _status(res) != "retyping"


def restore(res: CinderResource, step: Step) -> bool:
    try:
        res.api("POST", f"/backups/{step['backup']}/restore",
                {"restore": {"volume_id": res.resource_id}})
    except Exception as exc:
        raise Error(f"Failed to restore volume {res.resource_id} from backup "
                    f"{step['backup']} - {exc}") from exc
    return True


def restored(res: CinderResource, step: Step) -> bool:
    status = _status(res)
    if status == "restoring-backup":
        return False
    if status != "available":
        raise unknown_status(status, "Volume backup restore failed")
    return True


def ready_to_extend(res: CinderResource, step: Step) -> bool:
    return _status(res) in ("available", "in-use")


def extend(res: CinderResource, step: Step) -> bool:
    try:
        res.api("POST", f"/volumes/{res.resource_id}/action",
                {"os-extend": {"new_size": step["size"]}}, microversion=EXTEND_IN_USE)
    except Exception as exc:
        raise Error(f"Failed to extend volume {res.resource_id} - {exc}") from exc
    return True


def extended(res: CinderResource, step: Step) -> bool:
    status = _status(res)
    if status == "extending":
        return False
    if status not in ("available", "in-use"):
        raise unknown_status(status, "Volume resize failed")
    return True


def read_only(res: CinderResource, step: Step) -> bool:
    if step["flag"] is not None:
        set_read_only(res, bool(step["flag"]))
    return True


OPS = {
    "retyped": retyped,
    "restore": restore,
    "restored": restored,
    "ready_to_extend": ready_to_extend,
    "extend": extend,
    "extended": extended,
    "read_only": read_only,
}
