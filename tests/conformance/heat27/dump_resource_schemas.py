"""Record what Heat 27 serves for ``GET /resource_types/{type}`` for the OpenStack types.

Run with real Heat 27's interpreter (``../shared/anchor/setup.sh`` prints it); writes
``resource_schemas.json`` beside this file, which ``test_resource_schemas.py`` compares with
Hearth's answers type by type. Heat's own engine builds each answer (its registry, its schema
classes); nothing of Hearth is imported.

    py=$(../shared/anchor/setup.sh | tail -n 1)
    $py tests/conformance/heat27/dump_resource_schemas.py
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANCHOR = HERE.parents[3] / "shared" / "anchor"
sys.path.insert(0, str(ANCHOR))

import heatlib  # noqa: E402

# The services issue 13 covers, the AWS types Heat maps onto them, and software
# configuration (issue 14).
WANTED = re.compile(
    r"^(OS::(Nova|Neutron|Glance|Cinder|Keystone)::.*"
    r"|OS::Heat::(SoftwareConfig|StructuredConfig|MultipartMime|CloudConfig"
    r"|SoftwareComponent|SoftwareDeployments?|SoftwareDeploymentGroup"
    r"|StructuredDeployments?|StructuredDeploymentGroup|DeployedServer)"
    r"|AWS::EC2::(Instance|SecurityGroup|EIP|EIPAssociation|VPC|Subnet|InternetGateway"
    r"|RouteTable|SubnetRouteTableAssociation|VPCGatewayAttachment|NetworkInterface|Volume"
    r"|VolumeAttachment))$"
)


def schema_of(type_name: str, cls: type) -> dict:
    """What Heat's EngineService.resource_schema answers (with_description=True)."""
    from heat.engine import attributes, properties, support

    props = {}
    for name, data in cls.properties_schema.items():
        schema = properties.Schema.from_legacy(data)
        if schema.implemented and schema.support_status.status != support.HIDDEN:
            props[name] = dict(schema)
    attrs = {}
    for name, data in itertools.chain(cls.attributes_schema.items(),
                                      cls.base_attributes_schema.items()):
        schema = attributes.Schema.from_attribute(data)
        if schema.support_status.status != support.HIDDEN:
            attrs[name] = dict(schema)
    return {
        "resource_type": type_name,
        "properties": props,
        "attributes": attrs,
        "support_status": cls.support_status.to_dict(),
        "description": cls.getdoc(),
        # Heat answers NotSupported for these (not part of the answer).
        "hidden": cls.support_status.status == support.HIDDEN,
    }


def main() -> None:
    heatlib.setup()
    from heat.engine import resources

    env = resources.global_env()
    out = {}
    for type_name in sorted(env.get_types()):
        if not WANTED.match(type_name):
            continue
        cls = env.get_class(type_name)
        out[type_name] = json.loads(json.dumps(schema_of(type_name, cls), default=str))
    (HERE / "resource_schemas.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"{len(out)} types")


if __name__ == "__main__":
    main()
