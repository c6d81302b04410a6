"""Finding a service's object by name or id, as Heat's client plugins do.

Each finder takes a ``Cloud`` and a value and returns the object's id, or raises
``EntityNotFound`` / ``PhysicalResourceNameAmbiguity`` with Heat's messages. They back both the
service custom constraints (``nova.flavor``, ``neutron.network``...) and the resource types
that accept a name where the service wants an id.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hearth.clients.errors import is_not_found
from hearth.common.errors import EntityNotFound, HearthError

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud

Finder = Callable[["Cloud", str], str]


class PhysicalResourceNameAmbiguity(HearthError):
    """Several objects have the name a template gave."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Multiple physical resources were found with name ({name}).")


def _by_id_then_name(
    cloud: Cloud, value: str, entity: str, service: str,
    get: Callable[[str], Any], by_name: Callable[[str], list[Any]],
    uuid_ids: bool = False,
) -> str:
    """The id of the object whose id is ``value``, else of the one object named ``value``.

    ``uuid_ids``: the service gives this kind UUIDs only, so a value that is none (``cirros``)
    is looked up by name alone, one request instead of two.
    """
    found = None
    if not uuid_ids or _may_be_id(value):
        try:
            found = cloud.call(get, value, service=service)
        except Exception as exc:
            if not is_not_found(exc):
                raise
    if found is not None:
        return str(_id(found))
    named = cloud.call(by_name, value, service=service)
    if not named:
        raise EntityNotFound(entity, value)
    if len(named) > 1:
        raise PhysicalResourceNameAmbiguity(value)
    return str(_id(named[0]))


def _id(obj: Any) -> Any:
    return obj["id"] if isinstance(obj, dict) else obj.id


# --- neutron: one finder per kind of object ---------------------------------------------

_NEUTRON_KINDS: dict[str, tuple[str, str]] = {
    # kind: (collection path, Heat's entity name in "Unable to find ..." messages)
    "network": ("networks", "network"),
    "subnet": ("subnets", "subnet"),
    "port": ("ports", "port"),
    "router": ("routers", "router"),
    "security_group": ("security-groups", "security_group"),
    "qos_policy": ("qos/policies", "policy"),
    "address_scope": ("address-scopes", "address_scope"),
    "subnetpool": ("subnetpools", "subnetpool"),
    "segment": ("segments", "segment"),
    "trunk": ("trunks", "trunk"),
    "floatingip": ("floatingips", "floatingip"),
}


_KIND_OF_COLLECTION = {path: kind for kind, (path, _entity) in _NEUTRON_KINDS.items()}

NeutronKey = tuple[str, str, str]


def _key(kind: str, object_id: str) -> NeutronKey:
    return ("neutron", kind, object_id)


def neutron_key(kind: str, object_id: str) -> NeutronKey | None:
    """The key under which ``neutron_find`` keeps an object of ``kind`` found by id (None: a
    kind it does not look up)."""
    return _key(kind, object_id) if kind in _NEUTRON_KINDS else None


def neutron_key_of_path(path: str) -> NeutronKey | None:
    """The ``neutron_key`` of the object at ``path`` (``/networks/<id>``), if a kind of it."""
    collection, _, object_id = path.strip("/").rpartition("/")
    kind = _KIND_OF_COLLECTION.get(collection)
    return _key(kind, object_id) if kind and object_id else None


def neutron_find(cloud: Cloud, kind: str, value: str, project_id: str | None = None) -> str:
    """The id of the neutron object of ``kind`` whose id or name is ``value``.

    Neutron's own wording when it is missing, as Heat's neutron plugin reports it: ``Unable
    to find network with name or id 'x'``.
    """
    from openstack import exceptions as sdk

    path, entity = _NEUTRON_KINDS[kind]
    key = path.split("/")[-1].replace("-", "_")

    def fetch(query: dict[str, str]) -> list[dict[str, Any]]:
        response = cloud.conn.network.get(f"/{path}", params=query)
        sdk.raise_from_response(response)
        return list(response.json().get(key, []))

    def by_id() -> str | None:
        found = cloud.call(fetch, {"id": value}, service="network")
        return str(found[0]["id"]) if found else None

    if _may_be_id(value):
        known = cloud.seen_recently(_key(kind, value), by_id)
        if known is not None:
            return known
    query = {"name": value}
    if project_id:
        query["project_id"] = project_id
    by_name = cloud.call(fetch, query, service="network")
    if not by_name:
        raise NeutronNotFound(entity, value)
    if len(by_name) > 1:
        raise PhysicalResourceNameAmbiguity(value)
    return str(by_name[0]["id"])


def _may_be_id(value: str) -> bool:
    """Whether ``value`` can be the id of an object whose ids are UUIDs (Neutron's, Glance's
    images, Cinder's volumes, Nova's servers). One that cannot (``public``, ``cirros``) is
    only looked up by name, one request instead of two: a stack of 20 servers asked Glance
    for ``cirros`` 120 times."""
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


class NeutronNotFound(HearthError):
    """Neutron's own wording for a name or id that matches nothing."""

    http_status = 404

    def __init__(self, entity: str, value: str) -> None:
        super().__init__(f"Unable to find {entity} with name or id '{value}'")

    @property
    def heat_type(self) -> str:
        return "NotFound"


# --- nova, glance, cinder, keystone ------------------------------------------------------

def flavor_id(cloud: Cloud, value: str) -> str:
    conn = cloud.conn
    return _by_id_then_name(
        cloud, value, "Flavor", "compute",
        conn.compute.get_flavor,
        lambda name: [f for f in conn.compute.flavors(is_public=None) if f.name == name],
    )


def hypervisor_host(cloud: Cloud, value: str) -> str:
    """The host name when a hypervisor of that name exists (Heat's ``nova.host``)."""
    from openstack import exceptions as sdk

    def search() -> Any:
        response = cloud.conn.compute.get(
            "/os-hypervisors", params={"hypervisor_hostname_pattern": value},
            microversion="2.53",
        )
        sdk.raise_from_response(response)
        return response.json()

    try:
        cloud.call(search, service="compute")
    except Exception as exc:
        if is_not_found(exc):
            raise EntityNotFound("Host", value) from None
        raise
    return value


def keypair_name(cloud: Cloud, value: str) -> str:
    conn = cloud.conn
    try:
        cloud.call(conn.compute.get_keypair, value, service="compute")
    except Exception as exc:
        if is_not_found(exc):
            raise EntityNotFound("Key", value) from None
        raise
    return value


def server_id(cloud: Cloud, value: str) -> str:
    conn = cloud.conn
    return _by_id_then_name(
        cloud, value, "Server", "compute", conn.compute.get_server,
        lambda name: [s for s in conn.compute.servers(name=f"^{name}$")], uuid_ids=True,
    )


def image_id(cloud: Cloud, value: str) -> str:
    conn = cloud.conn
    return _by_id_then_name(
        cloud, value, "Image", "image", conn.image.get_image,
        lambda name: list(conn.image.images(name=name)), uuid_ids=True,
    )


def volume_id(cloud: Cloud, value: str) -> str:
    conn = cloud.conn
    return _by_id_then_name(
        cloud, value, "Volume", "block-storage", conn.block_storage.get_volume,
        lambda name: list(conn.block_storage.volumes(name=name)), uuid_ids=True,
    )


def volume_snapshot_id(cloud: Cloud, value: str) -> str:
    conn = cloud.conn
    return _by_id_then_name(
        cloud, value, "VolumeSnapshot", "block-storage", conn.block_storage.get_snapshot,
        lambda name: list(conn.block_storage.snapshots(name=name)), uuid_ids=True,
    )


def volume_backup_id(cloud: Cloud, value: str) -> str:
    conn = cloud.conn
    return _by_id_then_name(
        cloud, value, "Volume backup", "block-storage", conn.block_storage.get_backup,
        lambda name: list(conn.block_storage.backups(name=name)), uuid_ids=True,
    )


def volume_type_id(cloud: Cloud, value: str) -> str:
    conn = cloud.conn
    return _by_id_then_name(
        cloud, value, "VolumeType", "block-storage", conn.block_storage.get_type,
        lambda name: [t for t in conn.block_storage.types() if t.name == name],
    )


def qos_specs_id(cloud: Cloud, value: str) -> str:
    from openstack import exceptions as sdk

    conn = cloud.conn

    def listing() -> list[dict[str, Any]]:
        response = conn.block_storage.get("/qos-specs")
        sdk.raise_from_response(response)
        return list(response.json().get("qos_specs", []))

    for spec in cloud.call(listing, service="block-storage"):
        if value in (spec.get("id"), spec.get("name")):
            return str(spec["id"])
    raise EntityNotFound("QoSSpecs", value)


# Keystone objects a template may name as ``name{domain}`` (the domain by name or id), as
# Heat's keystone client plugin accepts them: the name is then looked up in that domain.
DOMAIN_QUALIFIED = ("project", "user", "group", "role")
_DOMAIN_SUFFIX = re.compile(r"\{(.*?)\}$")


def split_domain(value: str) -> tuple[str, str | None]:
    """``name{domain}`` as (name, domain); (value, None) when no domain is given."""
    match = _DOMAIN_SUFFIX.search(value)
    if match is None:
        return value, None
    return value[:match.start()], match.group(1)


def _keystone_finder(kind: str, entity: str) -> Finder:
    def find(cloud: Cloud, value: str) -> str:
        conn = cloud.conn
        getter = getattr(conn.identity, f"get_{kind}")
        lister = getattr(conn.identity, f"{kind}s")
        name, domain = split_domain(value) if kind in DOMAIN_QUALIFIED else (value, None)
        if not name:  # an empty id would address the whole collection
            raise EntityNotFound(entity, value)
        query: dict[str, str] = {}
        if domain is not None:
            try:
                query["domain_id"] = KEYSTONE_FINDERS["domain"](cloud, domain)
            except EntityNotFound:
                # Heat names the whole value when the domain is unknown.
                raise EntityNotFound(entity, value) from None
        return _by_id_then_name(
            cloud, name, entity, "identity", getter,
            lambda found: list(lister(name=found, **query)),
        )

    return find


KEYSTONE_FINDERS: dict[str, Finder] = {
    "project": _keystone_finder("project", "KeystoneProject"),
    "user": _keystone_finder("user", "KeystoneUser"),
    "group": _keystone_finder("group", "KeystoneGroup"),
    "role": _keystone_finder("role", "KeystoneRole"),
    "domain": _keystone_finder("domain", "KeystoneDomain"),
    "service": _keystone_finder("service", "KeystoneService"),
}


def region_id(cloud: Cloud, value: str) -> str:
    """A region's id; the id goes into the path quoted (Heat's region ids are URL-encoded)."""
    from urllib.parse import quote

    from openstack import exceptions as sdk

    def fetch() -> str:
        response = cloud.conn.identity.get(f"/regions/{quote(value, safe='')}")
        sdk.raise_from_response(response)
        return str(response.json()["region"]["id"])

    try:
        return cloud.call(fetch, service="identity")
    except Exception as exc:
        if is_not_found(exc):
            raise EntityNotFound("KeystoneRegion", value) from None
        raise
