"""Templates and API calls the console tests set their stacks up with (the API directly, as
any other client would)."""

from __future__ import annotations

import time
from typing import Any

import requests

# Three resources in a chain, each a second or two in progress: long enough to watch live.
CHAIN = """\
heat_template_version: 2018-08-31
description: a chain to watch
parameters:
  size:
    type: number
    label: Word size
    description: characters in the random word
    default: 8
    constraints:
      - range: {min: 4, max: 32}
        description: the size must be between 4 and 32
  greeting:
    type: string
    default: hello
    hidden: true
parameter_groups:
  - label: Shape
    parameters: [size]
resources:
  word:
    type: OS::Heat::RandomString
    properties: {length: {get_param: size}}
  first:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [word, value]}, wait_secs: 1.5}
  second:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [first, output]}, wait_secs: 1.5}
  third:
    type: OS::Heat::TestResource
    depends_on: [second]
    properties: {value: {get_param: greeting}, wait_secs: 1}
outputs:
  word: {value: {get_attr: [word, value]}, description: the random word}
"""

LEAF_FAILS = """\
heat_template_version: 2018-08-31
resources:
  fine:
    type: OS::Heat::TestResource
  volume:
    type: OS::Heat::TestResource
    depends_on: [fine]
    properties: {fail: true}
"""

MIDDLE = """\
heat_template_version: 2018-08-31
resources:
  db:
    type: leaf.yaml
  cache:
    type: OS::Heat::RandomString
"""

NESTED_FAILS = """\
heat_template_version: 2018-08-31
resources:
  network:
    type: OS::Heat::RandomString
  app:
    type: middle.yaml
    depends_on: [network]
"""
NESTED_FILES = {"middle.yaml": MIDDLE, "leaf.yaml": LEAF_FAILS}


class StackApi:
    def __init__(self, base_url: str, project: str, token: str | None = None) -> None:
        self.base = f"{base_url}/v1/{project}"
        self.headers = {"X-Auth-Token": token} if token else {}

    def create(self, name: str, template: str, files: dict[str, str] | None = None,
               **parameters: Any) -> str:
        resp = requests.post(f"{self.base}/stacks", headers=self.headers, timeout=30, json={
            "stack_name": name, "template": template, "files": files or {},
            "parameters": parameters})
        assert resp.status_code == 201, resp.text
        return str(resp.json()["stack"]["id"])

    def show(self, name: str) -> dict[str, Any]:
        resp = requests.get(f"{self.base}/stacks/{name}", headers=self.headers, timeout=30)
        assert resp.status_code == 200, resp.text
        return dict(resp.json()["stack"])

    def wait(self, name: str, status: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            stack = self.show(name)
            if not stack["stack_status"].endswith("IN_PROGRESS"):
                assert stack["stack_status"] == status, stack["stack_status_reason"]
                return stack
            assert time.monotonic() < deadline, f"{name} still {stack['stack_status']}"
            time.sleep(0.3)
