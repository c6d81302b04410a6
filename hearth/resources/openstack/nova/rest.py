"""Nova and Neutron REST through openstacksdk's adapters, errors as Heat-named CloudErrors.

Servers are read and written as Nova's own JSON, so ``show`` and the attributes are exactly
what Nova answers. Calls carry one compute microversion: the newest Heat 27's novaclient
speaks (2.96), so the bodies and answers are the ones Heat sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud

COMPUTE_MICROVERSION = "2.96"


def _request(cloud: Cloud, service: str, method: str, path: str, body: Any,
             params: Mapping[str, Any] | None, microversion: str | None) -> Any:
    from openstack import exceptions as sdk

    adapter = cloud.conn.compute if service == "compute" else cloud.conn.network

    def go() -> Any:
        kwargs: dict[str, Any] = {}
        if body is not None:
            kwargs["json"] = body
        if params:
            kwargs["params"] = dict(params)
        if microversion:
            kwargs["microversion"] = microversion
        response = adapter.request(path, method, **kwargs)
        sdk.raise_from_response(response)
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            return None

    return cloud.call(go, service=service)


def nova(cloud: Cloud, method: str, path: str, body: Any = None,
         params: Mapping[str, Any] | None = None) -> Any:
    """One call to Nova (compute microversion ``COMPUTE_MICROVERSION``); its JSON or None."""
    return _request(cloud, "compute", method, path, body, params, COMPUTE_MICROVERSION)


def neutron(cloud: Cloud, method: str, path: str, body: Any = None,
            params: Mapping[str, Any] | None = None) -> Any:
    """One call to Neutron; its JSON or None."""
    return _request(cloud, "network", method, path, body, params, None)


def server_action(cloud: Cloud, server_id: str, action: str, args: Any = None) -> Any:
    """POST /servers/{id}/action ``{action: args}`` (resize, rebuild, suspend...)."""
    return nova(cloud, "POST", f"/servers/{server_id}/action", {action: args})
