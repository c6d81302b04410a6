"""Templates fetched by URL (``template_url``, provider templates, TemplateURL): http(s) only,
with a size limit, as Heat's urlfetch."""

from __future__ import annotations

import requests

URL_SCHEMES = ("http", "https")


class FetchError(Exception):
    """The template could not be fetched; the message says why, in Heat's words."""


def is_url(name: str) -> bool:
    return name.split(":", 1)[0].lower() in URL_SCHEMES if ":" in name else False


def fetch_template(url: str, max_size: int) -> str:
    """The text at ``url``: http(s) only, at most ``max_size`` bytes."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme not in URL_SCHEMES:
        raise FetchError(f"Could not retrieve template: Invalid URL scheme {scheme or url}")
    try:
        with requests.get(url, stream=True, timeout=30) as resp:
            resp.raise_for_status()
            chunks: list[bytes] = []
            size = 0
            for chunk in resp.iter_content(65536):
                size += len(chunk)
                if size > max_size:
                    raise FetchError(
                        f"Could not retrieve template: Template exceeds maximum allowed size "
                        f"({max_size} bytes)"
                    )
                chunks.append(chunk)
    except requests.RequestException as exc:
        raise FetchError(
            f"Could not retrieve template: Failed to retrieve template: {exc}"
        ) from None
    return b"".join(chunks).decode("utf-8", errors="replace")
