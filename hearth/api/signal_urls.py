"""The public signal URLs that wait condition handles hand out: no Keystone token needed.

``POST|PUT /v1/signal/{resource_uuid}/{secret}`` takes a native signal body (as
``.../resources/{name}/signal`` does; software deployments' agents PUT or POST there);
``PUT|POST /v1/waitcondition/{resource_uuid}/{secret}`` a CloudFormation one, answered with the
resource's metadata as Heat's CFN API answers; ``GET|HEAD /v1/metadata/{resource_uuid}/{secret}``
answers a server resource's metadata to its agent (os-collect-config's ``request`` collector).
The secret in the URL is the credential: a wrong or unknown one is a 403 that changes nothing,
answered in the same time whether the resource exists or not; a source that keeps guessing
is refused with 429 for a while (``[api] secret_url_failures_per_minute``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import falcon

from hearth.api.attempts import pad_refusal
from hearth.api.handler import Handler, empty, reply
from hearth.common.errors import HearthError

SIGNAL = "signal"
WAITCONDITION = "waitcondition"
# Exactly these paths bypass Keystone (they carry their own credential).
TOKEN_PATH = re.compile(r"^/v1/(signal|waitcondition|metadata)/[^/]+/[^/]+/?$")


class TooManyGuesses(HearthError):
    http_status = 429

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"Too many refused secret URLs from this address: try again in "
                         f"{retry_after} s")
        self.retry_after = retry_after


class SecretUrlHandler(Handler):
    """What the three kinds share: the source's guesses counted, refusals evenly timed."""

    def guarded(self, req: falcon.Request, call: Callable[[], Any]) -> Any:
        source = req.remote_addr or "unknown"
        attempts = self.state.secret_url_attempts
        wait = attempts.retry_after(source)
        if wait is not None:
            raise TooManyGuesses(wait)
        started = time.monotonic()
        try:
            return call()
        except HearthError as exc:
            if exc.http_status == 403:
                attempts.failed(source)
                pad_refusal(started)
            raise


class TokenSignal(SecretUrlHandler):
    def on_post(self, req: falcon.Request, resp: falcon.Response, resource_uuid: str,
                secret: str) -> None:
        details = self.any_body(req)
        self.guarded(req, lambda: self.engine.resource_signal_by_token(
            resource_uuid, secret, details, SIGNAL))
        empty(resp)

    # A software deployment's TEMP_URL_SIGNAL is a PUT (Heat's Swift temp URL takes one).
    on_put = on_post


class MetadataURL(SecretUrlHandler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, resource_uuid: str,
               secret: str) -> None:
        # No Last-Modified: the agent then fetches every time and compares itself (a
        # one-second timestamp would hide a change made within the same second).
        reply(resp, self.guarded(req, lambda: self.engine.resource_metadata_by_token(
            resource_uuid, secret)))

    on_head = on_get


class WaitConditionSignal(SecretUrlHandler):
    def on_put(self, req: falcon.Request, resp: falcon.Response, resource_uuid: str,
               secret: str) -> None:
        details = self.any_body(req)
        answer = self.guarded(req, lambda: self.engine.resource_signal_by_token(
            resource_uuid, secret, details, WAITCONDITION))
        reply(resp, answer)

    # cfn-signal PUTs; curl users tend to POST.
    on_post = on_put
