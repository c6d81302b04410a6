"""OS::Nova::Server's property and attribute schemas, as Heat 27 serves them (API data)."""

from __future__ import annotations

from hearth.resources.attributes import AttributeSchema as A
from hearth.resources.openstack.base import since
from hearth.resources.openstack.nova.server_schema_nested import (
    BDM_V1_ITEM,
    BDM_V2_ITEM,
    NETWORK_ITEM,
)
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import DEPRECATED, HIDDEN, SUPPORTED, SupportStatus
from hearth.template.constraints import AllowedValues, CustomConstraint, Length

USER_DATA_FORMATS = ("HEAT_CFNTOOLS", "RAW", "SOFTWARE_CONFIG")
TRANSPORTS = ("POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "ZAQAR_MESSAGE")

PROPERTIES = {
    "name": P(P.STRING, "Server name.", update_allowed=True),
    "image": P(
        P.STRING, "The ID or name of the image to boot with.",
        constraints=[CustomConstraint("glance.image")], update_allowed=True,
    ),
    "block_device_mapping": P(
        P.LIST, "Block device mappings for this server.", schema=BDM_V1_ITEM,
    ),
    "block_device_mapping_v2": P(
        P.LIST, "Block device mappings v2 for this server.", schema=BDM_V2_ITEM,
        support_status=since("2015.1"),
    ),
    "flavor": P(
        P.STRING, "The ID or name of the flavor to boot onto.", required=True,
        update_allowed=True, constraints=[CustomConstraint("nova.flavor")],
    ),
    "flavor_update_policy": P(
        P.STRING,
        "Policy on how to apply a flavor update; either by requesting a server resize or "
        "by replacing the entire server.",
        default="RESIZE", constraints=[AllowedValues(["RESIZE", "REPLACE"])],
        update_allowed=True,
    ),
    "image_update_policy": P(
        P.STRING,
        "Policy on how to apply an image-id update; either by requesting a server rebuild "
        "or by replacing the entire server.",
        default="REBUILD",
        constraints=[AllowedValues(["REBUILD", "REPLACE", "REBUILD_PRESERVE_EPHEMERAL"])],
        update_allowed=True,
    ),
    "key_name": P(
        P.STRING, "Name of keypair to inject into the server.",
        constraints=[CustomConstraint("nova.keypair")],
    ),
    "admin_user": P(
        P.STRING, "Name of the administrative user to use on the server.",
        support_status=SupportStatus(
            status=HIDDEN, version="5.0.0",
            message='The default cloud-init user set up for each image (e.g. "ubuntu" for '
                    'Ubuntu 12.04+, "fedora" for Fedora 19+ and "cloud-user" for '
                    "CentOS/RHEL 6.5).",
            previous_status=SupportStatus(
                status=DEPRECATED, version="2014.1",
                previous_status=SupportStatus(version="2013.2"),
            ),
        ),
    ),
    "availability_zone": P(
        P.STRING, "Name of the availability zone for server placement.",
    ),
    "security_groups": P(
        P.LIST,
        "List of security group names or IDs. Cannot be used if neutron ports are "
        "associated with this server; assign security groups to the ports instead.",
        default=[],
    ),
    "networks": P(
        P.LIST,
        "An ordered list of nics to be added to this server, with information about "
        "connected networks, fixed ips, port etc.",
        schema=NETWORK_ITEM, update_allowed=True,
    ),
    "scheduler_hints": P(
        P.MAP,
        "Arbitrary key-value pairs specified by the client to help boot a server.",
    ),
    "metadata": P(
        P.MAP,
        "Arbitrary key/value metadata to store for this server. Both keys and values must "
        "be 255 characters or less. Non-string values will be serialized to JSON (and the "
        "serialized string must be 255 characters or less).",
        update_allowed=True, default={},
    ),
    "user_data_format": P(
        P.STRING,
        "How the user_data should be formatted for the server. For HEAT_CFNTOOLS, the "
        "user_data is bundled as part of the heat-cfntools cloud-init boot configuration "
        "data. For RAW the user_data is passed to Nova unmodified. For SOFTWARE_CONFIG "
        "user_data is bundled as part of the software config data, and metadata is "
        "derived from any associated SoftwareDeployment resources. And if the user_data "
        "is in CoreOS ignition(json) format, the metadata will be injected into the "
        "user_data automatically by Heat.",
        default="HEAT_CFNTOOLS", constraints=[AllowedValues(list(USER_DATA_FORMATS))],
    ),
    "software_config_transport": P(
        P.STRING,
        "How the server should receive the metadata required for software configuration. "
        "POLL_SERVER_CFN will allow calls to the cfn API action DescribeStackResource "
        "authenticated with the provided keypair. POLL_SERVER_HEAT will allow calls to the "
        "Heat API resource-show using the provided keystone credentials. POLL_TEMP_URL "
        "will create and populate a Swift TempURL with metadata for polling. ZAQAR_MESSAGE "
        "will create a dedicated zaqar queue and post the metadata for polling.",
        default="POLL_SERVER_CFN", update_allowed=True,
        constraints=[AllowedValues(list(TRANSPORTS))],
    ),
    "user_data_update_policy": P(
        P.STRING,
        "Policy on how to apply a user_data update; by ignoring it, by replacing the "
        "entire server, or rebuild the server.",
        default="REPLACE", constraints=[AllowedValues(["REPLACE", "IGNORE", "REBUILD"])],
        support_status=since("6.0.0"), update_allowed=True,
    ),
    "user_data": P(
        P.STRING,
        "User data script to be executed by cloud-init or CoreOS ignition. Changes cause "
        "replacement of the resource by default, but can be ignored altogether by setting "
        "the `user_data_update_policy` property.",
        default="", update_allowed=True,
    ),
    "reservation_id": P(P.STRING, "A UUID for the set of servers being requested."),
    "config_drive": P(P.BOOLEAN, "If True, enable config drive on the server."),
    "diskConfig": P(
        P.STRING, "Control how the disk is partitioned when the server is created.",
        constraints=[AllowedValues(["AUTO", "MANUAL"])],
    ),
    "personality": P(
        P.MAP,
        "A map of files to create/overwrite on the server upon boot. Keys are file names "
        "and values are the file contents.",
        support_status=SupportStatus(
            status=DEPRECATED, version="12.0.0",
            message="This is not supported with nova api microversion 2.57 and above. "
                    "OS::Nova::Server resource will not support it in the future. Please use "
                    "user_data or metadata instead. However, you can set heat config option "
                    "max_nova_api_microversion < 2.57 to use this property in the meantime.",
        ),
        default={},
    ),
    "admin_pass": P(
        P.STRING, "The administrator password for the server.", update_allowed=True,
    ),
    "tags": P(
        P.LIST, "Server tags. Supported since client version 2.26.",
        support_status=since("8.0.0"), schema=P(P.STRING), update_allowed=True,
    ),
    "deployment_swift_data": P(
        P.MAP,
        "Swift container and object to use for storing deployment data for the server "
        "resource. The parameter is a map value with the keys \"container\" and "
        "\"object\", and the values are the corresponding container and object names. The "
        "software_config_transport parameter must be set to POLL_TEMP_URL for swift to be "
        "used. If not specified, and software_config_transport is set to POLL_TEMP_URL, a "
        "container will be automatically created from the resource name, and the object "
        "name will be a generated uuid.",
        support_status=since("9.0.0"), default={}, update_allowed=True,
        schema={
            "container": P(P.STRING, "Name of the container.", constraints=[Length(min=1)]),
            "object": P(P.STRING, "Name of the object.", constraints=[Length(min=1)]),
        },
    ),
}

_IP_STATUS = SupportStatus(
    status=DEPRECATED, version="14.0.0", previous_status=SupportStatus(version="2015.1"),
)

ATTRIBUTES = {
    "name": A("Name of the server.", type=A.STRING),
    "addresses": A(
        "A dict of all network addresses with corresponding port_id and subnets. Each "
        "network will have two keys in dict, they are network name and network id. The "
        "port ID may be obtained through the following expression: ``{get_attr: [<server>, "
        "addresses, <network name_or_id>, 0, port]}``. The subnets may be obtained trough "
        "the following expression: ``{get_attr: [<server>, addresses, <network name_or_id>, "
        "0, subnets]}``. The network may be obtained through the following expression: "
        "``{get_attr: [<server>, addresses, <network name_or_id>, 0, network]}``.",
        type=A.MAP,
        support_status=SupportStatus(
            version="11.0.0", status=SUPPORTED,
            message="The attribute was extended to include subnets and network with "
                    "version 11.0.0.",
            previous_status=SupportStatus(status=SUPPORTED),
        ),
    ),
    "networks": A(
        'A dict of assigned network addresses of the form: {"public": [ip1, ip2...], '
        '"private": [ip3, ip4], "public_uuid": [ip1, ip2...], "private_uuid": [ip3, ip4]}. '
        "Each network will have two keys in dict, they are network name and network id.",
        type=A.MAP,
    ),
    "first_address": A(
        "Convenience attribute to fetch the first assigned network address, or an empty "
        "string if nothing has been assigned at this time. Result may not be predictable "
        "if the server has addresses from more than one network.",
        support_status=SupportStatus(
            status=HIDDEN, version="5.0.0",
            message='Use the networks attribute instead of first_address. For example: '
                    '"{get_attr: [<server name>, networks, <network name>, 0]}"',
            previous_status=SupportStatus(
                status=DEPRECATED, version="2014.2",
                previous_status=SupportStatus(version="2013.2"),
            ),
        ),
    ),
    "instance_name": A("AWS compatible instance name.", type=A.STRING),
    "accessIPv4": A(
        "The manually assigned alternative public IPv4 address of the server.",
        type=A.STRING, support_status=_IP_STATUS,
    ),
    "accessIPv6": A(
        "The manually assigned alternative public IPv6 address of the server.",
        type=A.STRING, support_status=_IP_STATUS,
    ),
    "console_urls": A(
        "URLs of server's consoles. To get a specific console type, the requested type "
        "can be specified as parameter to the get_attr function, e.g. get_attr: [ "
        "<server>, console_urls, novnc ]. Currently supported types are novnc, xvpvnc, "
        "spice-html5, rdp-html5, serial and webmks.",
        support_status=since("2015.1"), type=A.MAP,
    ),
    "tags": A(
        "Tags from the server. Supported since client version 2.26.",
        support_status=since("8.0.0"), type=A.LIST,
    ),
    "os_collect_config": A(
        "The os-collect-config configuration for the server's local agent to be "
        "configured to connect to Heat to retrieve deployment data.",
        support_status=since("9.0.0"), type=A.MAP, cache_mode=A.CACHE_NONE,
    ),
}
