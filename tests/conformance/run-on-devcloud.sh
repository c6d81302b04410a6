#!/usr/bin/env bash
# run-on-devcloud.sh - upstream Heat's API and functional suites against `hearth serve`, with
# the tests' tempest.conf pointed at the devcloud's services, image, flavors and networks
# (../shared/tools/conformance/run.sh assumes a cloud without Nova, Neutron, Cinder and Glance).
#
#   tests/conformance/run-on-devcloud.sh [run.sh arguments: --suite, --filter, --results ...]
#
# It copies ../shared/tools/conformance to a temporary directory, writes a tempest.conf.in
# there with [service_available] nova/neutron/cinder/glance = True, image cirros, flavors
# m1.small/m1.tiny, networks private/private-subnet/public and a keypair of its own, keeps
# only the skips that need something no Hearth test here has (RabbitMQ notifications,
# heat-manage), and runs that copy's run.sh with the arguments given.
#
# Before: the devcloud is running (../shared/tools/devcloud/start-devcloud.sh) and Hearth
# serves its orchestration endpoint (127.0.0.1:8004) with Keystone auth, e.g.
#   hearth serve --config-file tests/conformance/devcloud-hearth.conf
# (see that file: Keystone auth from the devcloud, [trustee] for trusts).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SHARED="${HERE}/../../../shared/tools/conformance"
DEVCLOUD_HOME="${DEVCLOUD_HOME:-$HOME/.cache/hearth-devcloud}"
OPENSTACK="${DEVCLOUD_HOME}/venv/bin/openstack"
export OS_CLIENT_CONFIG_FILE="${DEVCLOUD_HOME}/clouds.yaml"
KEYPAIR="${CONFORMANCE_KEYPAIR:-hearth-conformance}"

[[ -x "$SHARED/run.sh" ]] || { echo "no $SHARED/run.sh" >&2; exit 2; }
[[ -f "$OS_CLIENT_CONFIG_FILE" ]] || { echo "devcloud not installed: $OS_CLIENT_CONFIG_FILE" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -a "$SHARED/." "$work/"

# The tests boot servers with this keypair (made once, as the tests' user).
if ! "$OPENSTACK" --os-cloud devcloud-demo keypair show "$KEYPAIR" >/dev/null 2>&1; then
    "$OPENSTACK" --os-cloud devcloud-demo keypair create "$KEYPAIR" >/dev/null
fi

python3 - "$work/tempest.conf.in" "$KEYPAIR" <<'EOF'
import re
import sys

path, keypair = sys.argv[1], sys.argv[2]
text = open(path).read()
for service in ("nova", "neutron", "cinder", "glance"):
    text = re.sub(rf"^{service} = False$", f"{service} = True", text, flags=re.M)
values = {
    "minimal_image_ref": "cirros",
    "image_ref": "cirros",
    "instance_type": "m1.small",
    "minimal_instance_type": "m1.tiny",
}
for key, value in values.items():
    text = re.sub(rf"^{key} = .*$", f"{key} = {value}", text, flags=re.M)
text = text.replace(
    "skip_scenario_tests = true",
    "skip_scenario_tests = true\n"
    f"keypair_name = {keypair}\n"
    "fixed_network_name = private\n"
    "fixed_subnet_name = private-subnet\n"
    "floating_network_name = public\n"
    "network_for_ssh = private\n"
    "volume_size = 1",
)
open(path, "w").write(text)
EOF

# Only what needs something else than the devcloud and Hearth stays skipped.
grep -E '^(NotificationTest|PurgeTest)\b' "$SHARED/skip-list.txt" > "$work/skip-list.txt" || true

exec "$work/run.sh" "$@"
