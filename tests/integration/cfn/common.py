"""What the CFN API tests share: a boto3 client of a test server, and waiting for stacks
through boto3 or heatclient."""

from __future__ import annotations

import time
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from hearth.cli.serve import RunningServer

TIMEOUT = 60.0


def cfn_client(served: RunningServer, access: str, secret: str) -> Any:
    return boto3.client(
        "cloudformation", endpoint_url=f"{served.cfn_url}/v1/", region_name="RegionOne",
        aws_access_key_id=access, aws_secret_access_key=secret,
        config=Config(retries={"max_attempts": 1}),
    )


def cfn_settled(cfn: Any, name: str) -> dict[str, Any]:
    """The stack (by name or ARN) once no action of it is in progress, through boto3."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        stack: dict[str, Any] = cfn.describe_stacks(StackName=name)["Stacks"][0]
        if not stack["StackStatus"].endswith("IN_PROGRESS"):
            return stack
        assert time.monotonic() < deadline, stack["StackStatus"]
        time.sleep(0.1)


def heat_settled(heat: Any, stack_id: str) -> Any:
    """The stack once no action of it is in progress, through heatclient."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        stack = heat.stacks.get(stack_id)
        if not stack.stack_status.endswith("_IN_PROGRESS"):
            return stack
        assert time.monotonic() < deadline, stack.stack_status
        time.sleep(0.2)


def error_of(call: Any, **kwargs: Any) -> tuple[str, int]:
    """The AWS error code and HTTP status a boto3 call is refused with."""
    with pytest.raises(ClientError) as caught:
        call(**kwargs)
    info = caught.value.response
    return info["Error"]["Code"], info["ResponseMetadata"]["HTTPStatusCode"]
