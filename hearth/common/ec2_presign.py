"""Pre-signed CFN API URLs (Signature Version 2, as Heat signs wait condition handles): whoever
holds the URL may send that one request as the keypair's user, until the keypair is deleted.

The ARN is quoted in the URL (``:`` as ``%3A``) and signed as the server reads it, unquoted.
No timestamp is signed: Heat's expires with Keystone's 15-minute limit, which breaks waits
longer than that; here the URL lives exactly as long as its keypair (deleted with the handle).
"""

from __future__ import annotations

from urllib.parse import quote, urlencode, urlsplit

from keystoneclient.contrib.ec2.utils import Ec2Signer  # type: ignore[import-untyped]


def presigned_url(base_url: str, path: str, verb: str, access: str, secret: str) -> str:
    """``base_url`` (scheme://host[:port][/prefix]) + ``path`` signed for ``verb``."""
    parts = urlsplit(base_url.rstrip("/"))
    full_path = f"{parts.path}{path}"
    params = {"SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
              "AWSAccessKeyId": access}
    signature = Ec2Signer(secret).generate({
        "params": params, "verb": verb, "host": parts.netloc, "path": full_path,
    })
    query = urlencode({**params, "Signature": signature})
    return f"{parts.scheme}://{parts.netloc}{quote(full_path, safe='/')}?{query}"
