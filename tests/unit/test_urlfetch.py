"""Template URLs: internal addresses refused unless allowed, every redirect hop checked, a
total time budget however slowly a server answers, and a size limit."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from hearth.common import urlfetch

TEMPLATE = b"heat_template_version: 2018-08-31\n"


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path in ("/redirect-inside", "/redirect-closed"):
            self.send_response(302)
            self.send_header("Location", "http://10.0.0.1/secret" if self.path.endswith(
                "inside") else "http://127.0.0.1:9/secret")
            self.end_headers()
        elif self.path == "/drip":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            for _ in range(100):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.2)
        elif self.path == "/big":
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"x" * 5000)
        else:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(TEMPLATE)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        urlfetch.configure()


def test_internal_addresses_are_refused_by_default(server: str) -> None:
    urlfetch.configure()
    for url in (f"{server}/t.yaml", "http://localhost:1/t.yaml", "http://169.254.169.254/x",
                "http://10.1.2.3/t.yaml", "http://[::1]:1/t.yaml"):
        with pytest.raises(urlfetch.FetchError) as err:
            urlfetch.fetch_template(url, 1000)
        assert "template_fetch_allowed_networks" in str(err.value), url


def test_an_allowed_network_is_fetched_and_each_redirect_is_checked(server: str) -> None:
    urlfetch.configure(["127.0.0.1/32"])
    assert urlfetch.fetch_template(f"{server}/t.yaml", 1000) == TEMPLATE.decode()
    # The redirect leads into a network that is not allowed.
    with pytest.raises(urlfetch.FetchError, match="template_fetch_allowed_networks"):
        urlfetch.fetch_template(f"{server}/redirect-inside", 1000)
    urlfetch.configure(["127.0.0.1/32"], timeout=2)
    # Allowed, but the redirect leads to a port of the same host that says nothing: the error
    # names the URL only, not what (if anything) answered there.
    with pytest.raises(urlfetch.FetchError) as err:
        urlfetch.fetch_template(f"{server}/redirect-closed", 1000)
    assert str(err.value) == ("Could not retrieve template: Failed to retrieve template from "
                              "http://127.0.0.1:9/secret")


def test_a_dripping_server_is_cut_off_at_the_time_budget(server: str) -> None:
    urlfetch.configure(["127.0.0.1/32"], timeout=1.0)
    started = time.monotonic()
    with pytest.raises(urlfetch.FetchError, match="took longer than 1s"):
        urlfetch.fetch_template(f"{server}/drip", 1000)
    assert time.monotonic() - started < 3


def test_size_limit(server: str) -> None:
    urlfetch.configure(["127.0.0.1/32"])
    with pytest.raises(urlfetch.FetchError, match="exceeds maximum allowed size"):
        urlfetch.fetch_template(f"{server}/big", 1000)
