"""What an AWS::EC2::Instance boots with, built as Heat builds it: the CFN user data (the
HEAT_CFNTOOLS document, with the ``ec2-user`` account Heat adds for instances), Nova's legacy
block device mappings from ``BlockDeviceMappings`` and the scheduler hints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hearth.resources.openstack.nova import server_user_data as user_data

INSTANCE_USER = "ec2-user"


def cfn_user_data(content: str | None, metadata: Any, cfn_metadata_url: str,
                  instance_user: str = INSTANCE_USER) -> str:
    """The HEAT_CFNTOOLS document with the instance user created by cloud-init (and by the
    boothook, for the old cloud-init releases Heat still caters for)."""
    built = user_data.build_user_data(
        user_data.HEAT_CFNTOOLS, content or "", metadata, cfn_metadata_url
    ) or ""
    # Both parts are 7bit text in the document: the user goes where Heat's templates put it.
    config = user_data.CLOUD_CONFIG
    boothook = user_data.BOOTHOOK
    add_user = (f"useradd -m {instance_user}\n"
                f"echo -e '{instance_user}\\tALL=(ALL)\\tNOPASSWD: ALL' >> /etc/sudoers\n")
    built = built.replace(config, f"user: {instance_user}{config}", 1)
    first_line, rest = boothook.split("\n", 1)
    return built.replace(boothook, f"{first_line}\n{add_user}{rest}", 1)


def legacy_block_devices(mappings: Sequence[Mapping[str, Any]] | None
                         ) -> list[dict[str, Any]] | None:
    """``BlockDeviceMappings`` as Nova's legacy list (what novaclient makes of Heat's
    ``{device: "<snapshot>:snap:<size>:<delete>"}``)."""
    if not mappings:
        return None
    out = []
    for mapping in mappings:
        ebs = mapping.get("Ebs")
        if not ebs:
            continue
        item: dict[str, Any] = {"device_name": mapping["DeviceName"]}
        if ebs.get("SnapshotId"):
            item["snapshot_id"] = ebs["SnapshotId"]
        if ebs.get("VolumeSize"):
            item["volume_size"] = str(int(ebs["VolumeSize"]))
        if ebs.get("DeleteOnTermination") is not None:
            item["delete_on_termination"] = str(ebs["DeleteOnTermination"])
        out.append(item)
    return out


def scheduler_hints(hints: Sequence[Mapping[str, Any]] | None) -> dict[str, Any] | None:
    """Key/Value pairs as Nova's hints; a key given twice takes a list (as novaclient's
    shell does)."""
    if not hints:
        return None
    out: dict[str, Any] = {}
    for hint in hints:
        key, value = hint["Key"], hint["Value"]
        if key not in out:
            out[key] = value
        elif isinstance(out[key], str):
            out[key] = [out[key], value]
        else:
            out[key].append(value)
    return out
