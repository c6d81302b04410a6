"""heat-cfntools' cfn-get-metadata reads a resource's metadata through the CFN API as a stack
user (an AWS::IAM::AccessKey's keypair, checked by Keystone), sees it change after a stack
update, and is refused the resources its AccessPolicy does not list.

cfn-get-metadata finds its server only in files under /var/lib/heat-cfntools (boto's config
and the metadata server URL), as on an instance: it runs in a mount namespace of its own where
/var/lib and /var/cache are the test's directories, so the host's are never touched."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.keystone_fixtures import (
    Keystone,
    KeystoneUsers,
    demo_heat,
    keystone,  # noqa: F401 - the fixture
    keystone_server_conf,
    keystone_users,  # noqa: F401 - the fixture
)
from tests.integration.cfn.common import heat_settled

# Stack users of the demo project: one worker runs the tests that count or make them.
pytestmark = pytest.mark.xdist_group("devcloud")


def template(role: str) -> dict[str, Any]:
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {
            # Not OS::Heat::None: it never updates, its metadata neither (as in Heat).
            "config": {"Type": "OS::Heat::RandomString",
                       "Metadata": {"AWS::CloudFormation::Init": {"config": {
                           "files": {"/etc/role": {"content": role}}}}}},
            "other": {"Type": "OS::Heat::None", "Metadata": {"secret": "not for the user"}},
            "policy": {"Type": "OS::Heat::AccessPolicy",
                       "Properties": {"AllowedResources": ["config"]}},
            "user": {"Type": "AWS::IAM::User", "Properties": {"Policies": [{"Ref": "policy"}]}},
            "key": {"Type": "AWS::IAM::AccessKey", "Properties": {"UserName": {"Ref": "user"}}},
        },
        "Outputs": {
            "access": {"Value": {"Ref": "key"}},
            "secret": {"Value": {"Fn::GetAtt": ["key", "SecretAccessKey"]}},
        },
    }


@pytest.fixture(scope="module")
def served(keystone: Keystone, keystone_users: KeystoneUsers,  # noqa: F811
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    conf = keystone_server_conf(tmp_path_factory.mktemp("hearth-cfn-metadata"), trustee=True,
                                stack_domain=True)
    with serving(conf) as running:
        yield running


def _namespaces_work() -> str | None:
    if shutil.which("unshare") is None:
        return "no unshare(1) here"
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                           capture_output=True, text=True, check=False)
    return None if probe.returncode == 0 else f"unshare --mount fails: {probe.stderr.strip()}"


class Instance:
    """The files cfn-get-metadata reads on an instance, for a CFN API at ``cfn_url``."""

    def __init__(self, root: Path, cfntools: Path, cfn_url: str) -> None:
        self.root = root
        self.cfntools = cfntools
        lib = root / "lib" / "heat-cfntools"
        lib.mkdir(parents=True)
        (root / "cache").mkdir()
        # cfn-get-metadata takes the port from the end of this URL (so: no path).
        (lib / "cfn-metadata-server").write_text(f"{cfn_url}\n")
        host = urlsplit(cfn_url).hostname
        (lib / "cfn-boto-cfg").write_text(
            "[Boto]\ndebug = 0\nis_secure = 0\nhttps_validate_certificates = 1\n"
            f"cfn_region_name = heat\ncfn_region_endpoint = {host}\n")

    def get_metadata(self, access: str, secret: str, stack: str, resource: str,
                     ) -> subprocess.CompletedProcess[str]:
        command = (f"mount --bind {self.root / 'lib'} /var/lib && "
                   f"mount --bind {self.root / 'cache'} /var/cache && "
                   f'exec "$0" "$@"')
        return subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c", command,
             str(self.cfntools / "cfn-get-metadata"), "--access-key", access,
             "--secret-key", secret, "-s", stack, "-r", resource],
            capture_output=True, text=True, timeout=60, check=False)


def test_cfn_get_metadata_as_the_stack_user(
    served: RunningServer, cfntools: Path, tmp_path: Path,
) -> None:
    problem = _namespaces_work()
    if problem is not None:
        pytest.skip(problem)
    assert served.cfn_url is not None
    instance = Instance(tmp_path, cfntools, served.cfn_url)
    heat = demo_heat(served.url)
    name = f"cfn-md-{uuid.uuid4().hex[:6]}"
    stack_id = heat.stacks.create(stack_name=name, template=template("web"))["stack"]["id"]
    try:
        stack = heat_settled(heat, stack_id)
        assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
        outputs = {o["output_key"]: o["output_value"] for o in stack.outputs}
        access, secret = outputs["access"], outputs["secret"]

        read = instance.get_metadata(access, secret, name, "config")
        assert read.returncode == 0, read.stdout + read.stderr
        metadata = json.loads(read.stdout)
        assert metadata["AWS::CloudFormation::Init"]["config"]["files"] == {
            "/etc/role": {"content": "web"}}

        # A stack update changes the metadata; the next read sees it.
        heat.stacks.update(stack_id, template=template("db"))
        stack = heat_settled(heat, stack_id)
        assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
        read = instance.get_metadata(access, secret, name, "config")
        assert read.returncode == 0, read.stdout + read.stderr
        assert json.loads(read.stdout)["AWS::CloudFormation::Init"]["config"]["files"][
            "/etc/role"] == {"content": "db"}

        # The policy lists only "config": the other resource is refused.
        refused = instance.get_metadata(access, secret, name, "other")
        assert "not for the user" not in refused.stdout
        assert "AccessDenied" in refused.stdout + refused.stderr
    finally:
        heat.stacks.delete(stack_id)
    assert heat_settled(heat, stack_id).stack_status == "DELETE_COMPLETE"
