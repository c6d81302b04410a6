"""The user data a server boots with, built as Heat builds it.

RAW passes the user's text unchanged. HEAT_CFNTOOLS and SOFTWARE_CONFIG wrap it in a MIME
multipart document for cloud-init: a cloud-config part, a boothook, a part handler that
writes the ``text/x-cfninitdata`` parts to /var/lib/heat-cfntools (and /var/lib/cloud/data),
then the user's data, the resource metadata (``cfn-init-data``) and, for HEAT_CFNTOOLS, the
script that runs the user data plus where the CloudFormation metadata API is. The parts,
their file names and MIME types are Heat's, so images built for Heat boot the same way; the
guest-side scripts are Hearth's own, doing what Heat's do. A SOFTWARE_CONFIG user data that
is a CoreOS Ignition document gets the metadata injected as two files instead.
"""

from __future__ import annotations

import email
import json
from collections.abc import Mapping
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any
from urllib.parse import quote, urlparse

from hearth.common.errors import StackValidationFailed

RAW, HEAT_CFNTOOLS, SOFTWARE_CONFIG = "RAW", "HEAT_CFNTOOLS", "SOFTWARE_CONFIG"

CLOUD_CONFIG = """\

# Keep everything cloud-init's commands print, for troubleshooting.
output: {all: '| tee -a /var/log/cloud-init-output.log'}
"""

BOOTHOOK = """\
#!/bin/bash
# heat-cfntools installed from a package may still lack its /opt/aws/bin links.
cfn-create-aws-symlinks
# A boothook must always succeed.
exit 0
"""

PART_HANDLER = """\
#part-handler
import datetime
import os


def list_types():
    return ["text/x-cfninitdata"]


def handle_part(data, ctype, filename, payload):
    if ctype == "__begin__":
        os.makedirs("/var/lib/heat-cfntools", mode=0o700, exist_ok=True)
        return
    if ctype == "__end__":
        return
    with open("/var/log/part-handler.log", "a") as log:
        log.write("%s filename:%s, ctype:%s\\n" % (datetime.datetime.now(), filename, ctype))
    if ctype == "text/x-cfninitdata":
        for folder in ("/var/lib/heat-cfntools", "/var/lib/cloud/data"):
            with open(os.path.join(folder, filename), "w") as out:
                out.write(payload)
"""

LOG_USER_DATA = """\
#!/usr/bin/env python3
# Run the cfn-userdata part, log what it prints, and mark the provisioning finished.
import datetime
import logging
import os
import subprocess
import sys

VAR_PATH = "/var/lib/heat-cfntools"
LOG = logging.getLogger("heat-provision")


def run(path):
    LOG.info("%s", path)
    try:
        done = subprocess.run([path], capture_output=True)
    except OSError as exc:
        LOG.error("Cannot run userdata: %s", exc)
        return 0 if getattr(exc, "errno", None) == 8 else os.EX_OSERR
    for stream in (done.stdout, done.stderr):
        if stream:
            LOG.info(stream.decode("utf-8", "replace"))
    return done.returncode


def main():
    LOG.setLevel(logging.INFO)
    LOG.addHandler(logging.StreamHandler())
    handler = logging.FileHandler("/var/log/heat-provision.log")
    os.chmod(handler.baseFilename, 0o600)
    LOG.addHandler(handler)
    path = os.path.join(VAR_PATH, "cfn-userdata")
    os.chmod(path, 0o700)
    LOG.info("Provision began: %s", datetime.datetime.now())
    code = run(path)
    LOG.info("Provision done: %s", datetime.datetime.now())
    if code:
        LOG.error("Provision failed with exit code %s", code)
        sys.exit(code)
    finished = os.path.join(VAR_PATH, "provision-finished")
    with open(finished, "a"):
        os.utime(finished, None)


if __name__ == "__main__":
    main()
"""

# (content, file name, MIME subtype or None for the file name's stem)
Part = tuple[str | None, str, str | None]


def meta_serialize(metadata: Any) -> dict[str, str]:
    """Nova metadata: strings as they are, anything else as JSON (Heat's rule)."""
    if not isinstance(metadata, Mapping):
        raise StackValidationFailed("nova server metadata needs to be a Map.")
    return {
        str(key): value if isinstance(value, str) else json.dumps(value)
        for key, value in metadata.items()
    }


def is_ignition(user_data: str | None) -> bool:
    try:
        found = json.loads(user_data or "")
    except ValueError:
        return False
    ignition = found.get("ignition") if isinstance(found, dict) else None
    return bool(isinstance(ignition, dict) and ignition.get("version"))


def ignition_with_metadata(metadata: Any, user_data: str) -> str:
    """The Ignition document with the metadata written where heat-cfntools reads it."""
    if not metadata:
        return user_data
    document = json.loads(user_data)
    files = document.setdefault("storage", {})
    if not isinstance(files, dict):
        raise ValueError('Ignition "storage" section must be a map')
    listing = files.setdefault("files", [])
    if not isinstance(listing, list):
        raise ValueError('Ignition "files" section must be a list')
    source = "data:," + quote(json.dumps(metadata))
    for path in ("/var/lib/heat-cfntools/cfn-init-data", "/var/lib/cloud/data/cfn-init-data"):
        listing.append({
            "filesystem": "root", "group": {"name": "root"}, "path": path,
            "user": {"name": "root"}, "contents": {"source": source, "verification": {}},
            "mode": 0o640,
        })
    return json.dumps(document)


def _subpart(content: str | None, filename: str, subtype: str | None) -> MIMEText:
    text = content or ""
    charset = "us-ascii" if text.isascii() else "utf-8"
    if subtype is None:
        subtype = filename.rsplit(".", 1)[0] if "." in filename else filename
    part = MIMEText(text, subtype or "plain", charset)
    part.add_header("Content-Disposition", "attachment", filename=filename)
    return part


def _software_config_parts(user_data: str | None) -> list[Part]:
    """A multipart user data contributes each of its parts; anything else is one part."""
    try:
        parsed = email.message_from_string(user_data or "")
    except Exception:
        parsed = None
    if parsed is not None and parsed.is_multipart():
        parts: list[Part] = []
        for sub in parsed.get_payload():
            if isinstance(sub, email.message.Message):
                payload = sub.get_payload()
                parts.append((payload if isinstance(payload, str) else "",
                               sub.get_filename() or "", sub.get_content_subtype()))
        return parts
    return [(user_data, "", None)]


def build_user_data(
    user_data_format: str, user_data: str | None, metadata: Any, cfn_metadata_url: str,
    *, instance_connection_is_secure: str = "0", validate_certificates: str = "1",
) -> str | None:
    """The user data for Nova (before base64), or None when there is none to send."""
    if user_data_format == RAW:
        return user_data or None
    if user_data_format == SOFTWARE_CONFIG and is_ignition(user_data):
        return ignition_with_metadata(metadata, user_data or "")
    parts: list[Part] = [
        (CLOUD_CONFIG, "cloud-config", None),
        (BOOTHOOK, "boothook.sh", "cloud-boothook"),
        (PART_HANDLER, "part-handler.py", None),
    ]
    if user_data_format == HEAT_CFNTOOLS:
        parts.append((user_data, "cfn-userdata", "x-cfninitdata"))
        parts.append((LOG_USER_DATA, "loguserdata.py", "x-shellscript"))
    else:
        parts.extend(_software_config_parts(user_data))
    if metadata:
        parts.append((json.dumps(metadata), "cfn-init-data", "x-cfninitdata"))
    if user_data_format == HEAT_CFNTOOLS:
        parts.append((cfn_metadata_url, "cfn-metadata-server", "x-cfninitdata"))
        boto = "\n".join([
            "[Boto]", "debug = 0", f"is_secure = {instance_connection_is_secure}",
            f"https_validate_certificates = {validate_certificates}",
            "cfn_region_name = heat",
            f"cfn_region_endpoint = {urlparse(cfn_metadata_url).hostname}",
        ])
        parts.append((boto, "cfn-boto-cfg", "x-cfninitdata"))
    document = MIMEMultipart(_subparts=[_subpart(*part) for part in parts])
    return document.as_string()
