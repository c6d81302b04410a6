"""The ``console_urls`` attribute: a map whose URLs are asked of Nova only when read."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from hearth.resources.openstack.nova import rest

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud

# Console type -> Nova's remote-console protocol.
PROTOCOLS = {
    "novnc": "vnc",
    "xvpvnc": "vnc",
    "spice-html5": "spice",
    "rdp-html5": "rdp",
    "serial": "serial",
    "webmks": "mks",
}


class ConsoleUrls(Mapping[str, str]):
    """Each supported console type to its URL, or to why there is none (Heat's wording)."""

    def __init__(self, cloud: Cloud, server_id: str) -> None:
        self.cloud = cloud
        self.server_id = server_id

    def __getitem__(self, key: str) -> str:
        if key not in PROTOCOLS:
            # novaclient's UnsupportedConsoleType message.
            return f"Unsupported console_type \"{key}\""
        body = {"remote_console": {"protocol": PROTOCOLS[key], "type": key}}
        try:
            found: Any = rest.nova(self.cloud, "POST",
                                   f"/servers/{self.server_id}/remote-consoles", body)
            console = found.get("remote_console") or found.get("console") or {}
            return str(console["url"])
        except Exception as exc:
            return f"Cannot get console url: {exc}"

    def __iter__(self) -> Iterator[str]:
        return iter(PROTOCOLS)

    def __len__(self) -> int:
        return len(PROTOCOLS)
