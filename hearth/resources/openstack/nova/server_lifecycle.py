"""A server's life in Nova: boot and wait for ACTIVE, delete and wait until it is gone (then
its internal ports), suspend, resume, check and snapshot.

A server that goes to ERROR while booting raises ResourceInError with Nova's fault; the engine
then retries the create as Heat does (``action_retry_limit``: handle_delete, then
handle_create again), so the delete also removes the internal ports of the failed boot.
"""

from __future__ import annotations

import time
from typing import Any

from hearth.clients.errors import ResourceInError, ResourceUnknownStatus, is_not_found
from hearth.common.errors import HearthError, NotFound
from hearth.resources.builtin.software import server_transport
from hearth.resources.openstack.base import CloudResource
from hearth.resources.openstack.nova import rest, server_interfaces, server_networks
from hearth.resources.openstack.nova.server_updates import Error, status_of, task_state

# Statuses a server passes through on its way to ACTIVE (novaclient plugin's list).
DEFERRED = frozenset({"BUILD", "HARD_REBOOT", "PASSWORD", "REBOOT", "RESCUE", "RESIZE",
                      "REVERT_RESIZE", "SHUTOFF", "SUSPENDED", "VERIFY_RESIZE"})
SNAPSHOT_TASKS = frozenset({"image_uploading", "image_snapshot_pending", "image_snapshot",
                            "image_pending_upload"})
SNAPSHOT_IMAGE = "snapshot_image_id"
DETACH_CHECKS = 10


class InterfaceDetachFailed(HearthError):
    """A port did not leave the server (Heat's error of that name)."""


class ServerLifecycle(CloudResource):
    """The parts of OS::Nova::Server that wait on Nova (see the module doc)."""

    service_type = "compute"
    default_client_name = "nova"

    # --- hooks the server type provides --------------------------------------------------

    def create_server(self) -> str:
        raise NotImplementedError

    def store_external_ports(self) -> None:
        raise NotImplementedError

    # --- the object ----------------------------------------------------------------------

    def fetch(self) -> dict[str, Any]:
        return dict(rest.nova(self.cloud, "GET", f"/servers/{self.resource_id}")["server"])

    def delete_object(self) -> None:
        rest.nova(self.cloud, "DELETE", f"/servers/{self.resource_id}")

    def is_active(self, server: dict[str, Any]) -> bool:
        """ACTIVE: True; on the way: False; ERROR or a status Heat does not know: raises."""
        status = status_of(server)
        if status in DEFERRED:
            return False
        if status == "ACTIVE":
            return True
        if status == "ERROR":
            fault = server.get("fault") or {}
            raise ResourceInError(
                f"Went to status ERROR due to \"Message: {fault.get('message', 'Unknown')}, "
                f"Code: {fault.get('code', 'Unknown')}\""
            )
        raise ResourceUnknownStatus(
            f"Server is not active - Unknown status {server.get('status')} due to \"Unknown\""
        )

    # --- create --------------------------------------------------------------------------

    def handle_create(self) -> Any:
        return self.create_server()

    def check_create_complete(self, cookie: Any) -> bool:
        if not self.is_active(self.refresh()):
            return self.poll_later()
        self.store_external_ports()
        return True

    def ports(self) -> server_networks.Ports:
        return server_networks.Ports(self, self.cloud)

    # --- delete --------------------------------------------------------------------------

    def handle_delete(self) -> Any:
        self.data_delete(server_networks.EXTERNAL_PORTS)
        # The agent's credentials (software config transports) go first.
        server_transport.forget(self)
        if self.resource_id is None:
            self.ports().delete_all_internal()
            return None
        try:
            self.delete_object()
        except Exception as exc:
            if not is_not_found(exc):
                raise
            self.ports().delete_all_internal()
            return None
        return {"server": self.resource_id}

    def check_delete_complete(self, cookie: Any) -> bool:
        if not cookie:
            return True
        if cookie.get("image") and not cookie.get("image_done"):
            if not self._image_ready(cookie["image"]):
                return self.poll_later()
            cookie["image_done"] = True
            if self.handle_delete() is None:
                return True
            return self.poll_later()
        server = self.fetch_or_none()
        if server is None or status_of(server) == "DELETED":
            # Nova removed the ports it made; the ones Heat made are Heat's to remove.
            self.ports().delete_all_internal()
            return True
        if task_state(server) != "deleting":
            status = status_of(server)
            if status == "SOFT_DELETED":
                rest.server_action(self.cloud, str(self.resource_id), "forceDelete")
            elif status == "ERROR":
                fault = server.get("fault") or {}
                raise ResourceInError(
                    f"Went to status ERROR due to \"Server {server.get('name')} delete "
                    f"failed: ({fault.get('code')}) {fault.get('message', 'Unknown')}\""
                )
        return self.poll_later()

    def handle_snapshot_delete(self, state: tuple[str, str]) -> Any:
        """Deletion policy Snapshot: an image of the server first, then the delete."""
        if state[1] != "FAILED" and self.resource_id:
            return {"server": self.resource_id, "image": self._create_image(),
                    "image_done": False}
        return self.handle_delete()

    # --- replacement ---------------------------------------------------------------------

    def prepare_for_replace(self) -> None:
        """Heat's: free the server's ports (those Heat made and those it recorded as Nova's or
        the template's) so its replacement can take them; a server in ERROR (or gone) just
        loses the ports Heat made."""
        if self.resource_id is None:
            return
        server = self.fetch_or_none()
        if server is None or status_of(server) == "ERROR":
            self.ports().delete_all_internal()
            return
        ports = self.ports()
        for port_id in (server_networks.stored_ports(self)
                        + server_networks.stored_ports(self, server_networks.EXTERNAL_PORTS)):
            step = {"port": port_id}
            server_interfaces.start_detach(ports, self.resource_id, step)
            self._wait_detached(ports, step)

    def _wait_detached(self, ports: server_networks.Ports, step: dict[str, Any]) -> None:
        # Heat's max_interface_check_attempts, with its growing waits (capped at 12 s).
        delay = 0.5
        for _ in range(DETACH_CHECKS):
            if server_interfaces.detach_done(ports, self.refresh(), step):
                return
            time.sleep(delay)
            delay = min(delay * 2, 12.0)
        raise InterfaceDetachFailed(
            f"Failed to detach interface ({step['port']}) from server ({self.resource_id})"
        )

    # --- suspend, resume, check ----------------------------------------------------------

    def _server_or_not_found(self) -> dict[str, Any]:
        if self.resource_id is None:
            raise Error(f"Cannot {self.context.action.lower()} {self.name}, resource_id not set")
        try:
            return dict(self.refresh())
        except Exception as exc:
            if is_not_found(exc):
                raise NotFound(f"Failed to find server {self.resource_id}") from None
            raise

    def handle_suspend(self) -> Any:
        server = self._server_or_not_found()
        if status_of(server) != "SUSPENDED":
            rest.server_action(self.cloud, str(self.resource_id), "suspend")
        return self.resource_id

    def check_suspend_complete(self, cookie: Any) -> bool:
        server = self.refresh()
        status = status_of(server)
        if status == "SUSPENDED":
            return True
        if status in DEFERRED | {"ACTIVE"}:
            return self.poll_later()
        raise ResourceUnknownStatus(
            f"Suspend of server {server.get('name')} failed - Unknown status {status} due to "
            "\"Unknown\""
        )

    def handle_resume(self) -> Any:
        server = self._server_or_not_found()
        if status_of(server) != "ACTIVE":
            rest.server_action(self.cloud, str(self.resource_id), "resume")
        return self.resource_id

    def check_resume_complete(self, cookie: Any) -> bool:
        return self.is_active(self.refresh()) or self.poll_later()

    def handle_check(self) -> None:
        status = status_of(self.refresh())
        if status != "ACTIVE":
            raise Error(f"'status': expected 'ACTIVE', got '{status}'")

    # --- snapshots -----------------------------------------------------------------------

    def _create_image(self) -> str:
        found = rest.server_action(self.cloud, str(self.resource_id), "createImage",
                                   {"name": self.physical_resource_name()})
        return str(found["image_id"])

    def handle_snapshot(self) -> Any:
        image_id = self._create_image()
        # What a restore boots from (Heat keeps the same key).
        self.data_set(SNAPSHOT_IMAGE, image_id)
        return image_id

    def _image_ready(self, image_id: str) -> bool:
        image = self.cloud.call(self.conn.image.get_image, image_id, service="image")
        status = str(image.status or "").lower()
        if status in ("error", "deleted", "killed"):
            raise Error(status)
        return status == "active"

    def check_snapshot_complete(self, image_id: Any) -> bool:
        if self._image_ready(str(image_id)):
            if task_state(self.refresh()) not in SNAPSHOT_TASKS:
                return True
        return self.poll_later()

    def handle_delete_snapshot(self, snapshot: dict[str, Any]) -> None:
        """A stack snapshot is deleted: so is the server's image of it."""
        image_id = (snapshot.get("resource_data") or {}).get(SNAPSHOT_IMAGE)
        if not image_id:
            return
        try:
            self.cloud.call(self.conn.image.delete_image, image_id, service="image")
        except Exception as exc:
            if not is_not_found(exc):
                raise

    @classmethod
    def restored_properties(cls, properties: dict[str, Any],
                            resource_data: dict[str, Any]) -> dict[str, Any]:
        """Heat's handle_restore: the same server booted from the snapshot's image."""
        props = {k: v for k, v in properties.items() if v is not None}
        for key in ("block_device_mapping", "block_device_mapping_v2", "networks"):
            if props.get(key) is not None:
                props[key] = [{k: v for k, v in item.items() if v is not None}
                              for item in props[key]]
        props["image"] = resource_data[SNAPSHOT_IMAGE]
        return props
