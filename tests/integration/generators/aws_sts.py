"""What an EKS API server checks in an ``argocd-k8s-auth aws`` token, offline.

The token is ``k8s-aws-v1.`` + base64url of a presigned STS ``GetCallerIdentity`` URL (SigV4, query
signing) whose signed headers include ``x-k8s-aws-id: <cluster name>``. EKS forwards the URL to STS;
here the signature is checked with the test's own secret key instead (AWS Signature Version 4 as
documented: canonical request, string to sign, the derived key), so a token for another cluster, signed
with another key, or expired, is refused. Never used against a network: the URL is only parsed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import urllib.parse
from datetime import UTC, datetime, timedelta

PREFIX = "k8s-aws-v1."
_UNRESERVED = "-_.~"


def _mac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def problem(token: str, *, cluster: str, access_key: str, secret_key: str, now: datetime | None = None) -> str:
    """Why this token is refused ("" when it is good)."""
    if not token.startswith(PREFIX):
        return "not a k8s-aws-v1 token"
    raw = token.removeprefix(PREFIX)
    try:
        url = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode()
    except ValueError:
        return "not base64url"
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    params = dict(query)
    if params.get("Action") != "GetCallerIdentity" or params.get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256":
        return "not a presigned GetCallerIdentity"
    credential = params.get("X-Amz-Credential", "").split("/")
    if len(credential) != 5 or credential[0] != access_key or credential[3:] != ["sts", "aws4_request"]:
        return "another access key or service"
    signed = params.get("X-Amz-SignedHeaders", "")
    if signed != "host;x-k8s-aws-id":
        return f"signed headers {signed!r}"
    stamp = params.get("X-Amz-Date", "")
    signed_at = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    expires = signed_at + timedelta(seconds=int(params.get("X-Amz-Expires", "0")))
    # EKS accepts a token for 15 minutes after signing whatever X-Amz-Expires says (aws-iam-authenticator)
    if (now or datetime.now(UTC)) > max(expires, signed_at + timedelta(minutes=15)):
        return "expired"
    canonical_query = "&".join(
        f"{urllib.parse.quote(k, safe=_UNRESERVED)}={urllib.parse.quote(v, safe=_UNRESERVED)}"
        for k, v in sorted(q for q in query if q[0] != "X-Amz-Signature")
    )
    request = "\n".join(
        [
            "GET",
            parts.path or "/",
            canonical_query,
            f"host:{parts.netloc}\nx-k8s-aws-id:{cluster}\n",
            signed,
            hashlib.sha256(b"").hexdigest(),
        ]
    )
    date, region, service = credential[1], credential[2], credential[3]
    scope = f"{date}/{region}/{service}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(request.encode()).hexdigest()])
    key = _mac(_mac(_mac(_mac(f"AWS4{secret_key}".encode(), date), region), service), "aws4_request")
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, params.get("X-Amz-Signature", "")):
        return "bad signature (another cluster name or secret key)"
    return ""
