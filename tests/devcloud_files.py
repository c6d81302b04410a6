"""Where the devcloud (../shared/tools/devcloud) keeps its files on this machine: its home and
the clouds.yaml with its users (``devcloud-admin``, ``devcloud-demo``)."""

from __future__ import annotations

import os
from pathlib import Path

HOME = Path(os.environ.get("DEVCLOUD_HOME") or Path.home() / ".cache" / "hearth-devcloud")
CLOUDS_FILE = HOME / "clouds.yaml"
