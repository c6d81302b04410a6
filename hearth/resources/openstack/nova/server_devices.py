"""Block device mappings: Heat's checks, and the bodies Nova boots from."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hearth.common.errors import StackValidationFailed

# v2 keys copied as they are when given.
_V2_PASSTHROUGH = ("device_type", "disk_bus", "boot_index", "volume_size",
                   "delete_on_termination", "volume_type")


def _conflict(*names: str) -> StackValidationFailed:
    return StackValidationFailed(
        f"Cannot define the following properties at the same time: {', '.join(names)}."
    )


def validate(name: str, image: str | None, bdm: Sequence[Mapping[str, Any]] | None,
             bdm_v2: Sequence[Mapping[str, Any]] | None) -> None:
    """Heat's checks: one form of mapping, one source per mapping, something to boot."""
    bdm, bdm_v2 = bdm or [], bdm_v2 or []
    if bdm and bdm_v2:
        raise _conflict("block_device_mapping", "block_device_mapping_v2")
    bootable = image is not None
    for mapping in bdm:
        if mapping.get("device_name") == "vda":
            bootable = True
        volume, snapshot = mapping.get("volume_id"), mapping.get("snapshot_id")
        if volume is not None and snapshot is not None:
            raise _conflict("volume_id", "snapshot_id")
        if volume is None and snapshot is None:
            raise StackValidationFailed(
                "Either volume_id or snapshot_id must be specified for device mapping "
                f"{mapping.get('device_name')}"
            )
    boot_sources: list[Any] = [image]
    for mapping in bdm_v2:
        image_ref = mapping.get("image") or mapping.get("image_id")
        sources = (mapping.get("volume_id"), mapping.get("snapshot_id"), image_ref,
                   mapping.get("swap_size"),
                   mapping.get("ephemeral_size") or mapping.get("ephemeral_format"))
        given = sum(1 for s in sources if s is not None)
        if given > 1:
            raise _conflict("volume_id", "snapshot_id", "image", "swap_size",
                            "ephemeral_size", "ephemeral_format")
        if given == 0:
            raise StackValidationFailed(
                "Either volume_id, snapshot_id, image_id, swap_size, ephemeral_size or "
                "ephemeral_format must be specified."
            )
        if any(s is not None for s in sources[:3]) and mapping.get("boot_index") in (None, 0):
            bootable = True
            boot_sources.extend(sources[:3])
    if not bootable:
        raise StackValidationFailed(
            f"Neither image nor bootable volume is specified for instance {name}"
        )
    if bdm_v2 and sum(1 for s in boot_sources if s is not None) != 1:
        raise StackValidationFailed(f"Multiple bootable sources for instance {name}.")


def legacy_mappings(bdm: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
    """``block_device_mapping`` as Nova's legacy mapping list."""
    if not bdm:
        return None
    out = []
    for mapping in bdm:
        item: dict[str, Any] = {"device_name": mapping["device_name"]}
        if mapping.get("snapshot_id"):
            item["snapshot_id"] = mapping["snapshot_id"]
        else:
            item["volume_id"] = mapping.get("volume_id")
        if mapping.get("volume_size"):
            item["volume_size"] = mapping["volume_size"]
        if mapping.get("delete_on_termination"):
            item["delete_on_termination"] = True
        out.append(item)
    return out


def v2_mappings(bdm_v2: Sequence[Mapping[str, Any]] | None,
                image_id: Callable[[str], str]) -> list[dict[str, Any]] | None:
    """``block_device_mapping_v2`` as Nova's list (image names resolved by ``image_id``)."""
    if not bdm_v2:
        return None
    out = []
    for mapping in bdm_v2:
        image = mapping.get("image") or mapping.get("image_id")
        item: dict[str, Any]
        if mapping.get("volume_id"):
            item = _from_source(mapping["volume_id"], "volume")
        elif mapping.get("snapshot_id"):
            item = _from_source(mapping["snapshot_id"], "snapshot")
        elif image:
            item = _from_source(image_id(str(image)), "image")
        elif mapping.get("swap_size"):
            item = {"source_type": "blank", "destination_type": "local", "boot_index": -1,
                    "delete_on_termination": True, "guest_format": "swap",
                    "volume_size": mapping["swap_size"]}
        else:
            item = {"source_type": "blank", "destination_type": "local", "boot_index": -1,
                    "delete_on_termination": True}
            if mapping.get("ephemeral_size"):
                item["volume_size"] = mapping["ephemeral_size"]
            if mapping.get("ephemeral_format"):
                item["guest_format"] = mapping["ephemeral_format"]
        if mapping.get("device_name"):
            item["device_name"] = mapping["device_name"]
        for key in _V2_PASSTHROUGH:
            if mapping.get(key) is not None:
                item[key] = mapping[key]
        out.append(item)
    return out


def _from_source(uuid: str, source: str) -> dict[str, Any]:
    return {"uuid": uuid, "source_type": source, "destination_type": "volume",
            "boot_index": 0, "delete_on_termination": False}
