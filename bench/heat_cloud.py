"""Heat 27 side of ``python -m bench.cloud``: run with the anchor's python (Heat's venv), from the
repository's root, as ``<anchor python> -m bench.heat_cloud SPEC.json``.

SPEC.json holds the template, the stack name, the user's credentials and the Heat options. One
stack is created then deleted with Heat's legacy engine in this process (as
../shared/anchor/bench_heat.py does, on its own SQLite file), with a RequestContext built as
heat-api builds it behind keystonemiddleware (the user's token, the token body with its
catalog, auth_url) and trusts to the ``heat`` service user for the stored credentials, Heat's
default. Every call to the cloud is counted as in Hearth's process (bench.api_calls). The last
line of the output is one JSON object with the figures.

Heat is imported through importlib: this module is checked by Hearth's mypy, where Heat is not
installed.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.api_calls import CallCounter, install

ANCHOR = Path(os.environ.get("HEARTH_ANCHOR_DIR") or
              Path(__file__).resolve().parents[2] / "shared" / "anchor")


def heat(module: str) -> ModuleType:
    return importlib.import_module(module)


def configure(spec: dict[str, Any], db_url: str) -> None:
    """heatlib's setup, then what a real heat.conf would say for this cloud."""
    sys.path.insert(0, str(ANCHOR))
    heatlib = heat("heatlib")
    heatlib.setup(db_url, log_level=spec.get("log_level", "ERROR"),
                  sleep=bool(spec.get("sleep", True)))
    cfg = heat("oslo_config.cfg").CONF
    ks_loading = heat("keystoneauth1.loading")
    auth = spec["auth"]
    cfg.set_override("deferred_auth_method", spec.get("deferred_auth_method", "trusts"))
    cfg.set_override("region_name_for_services", auth.get("region_name", "RegionOne"))
    cfg.set_override("auth_uri", auth["auth_url"], group="clients_keystone")
    trustee = spec["trustee"]
    cfg.register_opts(ks_loading.get_auth_plugin_conf_options("password"), group="trustee")
    cfg.set_override("auth_type", "password", group="trustee")
    cfg.set_override("auth_url", auth["auth_url"], group="trustee")
    cfg.set_override("username", trustee["username"], group="trustee")
    cfg.set_override("password", trustee["password"], group="trustee")
    cfg.set_override("user_domain_name", trustee.get("user_domain_name", "Default"),
                     group="trustee")


def user_context(auth: dict[str, Any]) -> Any:
    """The user's token (one Keystone call, the user's own, counted as setup) as the context
    heat-api's middleware makes from keystonemiddleware's headers and token body."""
    v3 = heat("keystoneauth1.identity.v3")
    session = heat("keystoneauth1.session")
    plugin = v3.Password(
        auth_url=auth["auth_url"], username=auth["username"], password=auth["password"],
        project_name=auth["project_name"], user_domain_name=auth.get("user_domain_name",
                                                                     "Default"),
        project_domain_name=auth.get("project_domain_name", "Default"),
    )
    access = plugin.get_access(session.Session())
    context = heat("heat.common.context")
    return context.RequestContext(
        auth_token=access.auth_token,
        auth_token_info=access._data,  # the token body keystonemiddleware hands to heat-api
        auth_url=auth["auth_url"],
        region_name=auth.get("region_name", "RegionOne"),
        user_id=access.user_id,
        user_name=access.username,
        username=access.username,
        user_domain_id=access.user_domain_id,
        project_id=access.project_id,
        project_name=access.project_name,
        project_domain_id=access.project_domain_id,
        roles=list(access.role_names),
        is_admin=False,
    )


def run(spec: dict[str, Any], counter: CallCounter) -> dict[str, Any]:
    stack_mod = heat("heat.engine.stack")
    template_mod = heat("heat.engine.template")
    environment = heat("heat.engine.environment")
    ctx = user_context(spec["auth"])
    result: dict[str, Any] = {}
    counter.phase("create")
    started = time.perf_counter()
    tmpl = template_mod.Template(spec["template"], env=environment.Environment({}))
    stack = stack_mod.Stack(ctx, spec["stack_name"], tmpl, disable_rollback=True,
                            timeout_mins=int(spec.get("timeout_mins", 60)))
    try:
        stack.validate()
        stack.store()
        stack.create()
    except Exception as exc:  # a failed validate: still report it, and delete what is there
        result["create_error"] = f"{type(exc).__name__}: {exc}"
    result["create_s"] = time.perf_counter() - started
    result["create_state"] = "{}_{}".format(*stack.state)
    result["create_reason"] = stack.status_reason
    result["stack_id"] = stack.id
    counter.phase("delete")
    started = time.perf_counter()
    if stack.id is not None:
        stack = stack_mod.Stack.load(ctx, stack_id=stack.id)
        stack.delete()
    result["delete_s"] = time.perf_counter() - started
    result["delete_state"] = "{}_{}".format(*stack.state)
    result["delete_reason"] = stack.status_reason
    return result


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text())
    counter = CallCounter()
    uninstall = install(counter)
    with tempfile.TemporaryDirectory(prefix="hearth-bench-heat-") as tmp:
        configure(spec, f"sqlite:///{tmp}/heat.sqlite")
        try:
            result = run(spec, counter)
        finally:
            uninstall()
    result["calls"] = {phase: counter.summary(phase) for phase in counter.phases()}
    result["sleep"] = bool(spec.get("sleep", True))
    result["label"] = ("legacy engine, stack mode, sleep "
                       + ("on" if result["sleep"] else "off"))
    print(json.dumps(result, sort_keys=True, default=str))
    ok = (result.get("create_state") == "CREATE_COMPLETE"
          and result.get("delete_state") == "DELETE_COMPLETE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
