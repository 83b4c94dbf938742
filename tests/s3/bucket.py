"""What a bucket holds, read over the S3 API itself (standard library only): the test looks at the
store the way any S3 client would, not through the service under test and not through one
server's files on disk, so the same checks hold for every store the test can run on.

Requests are signed with AWS Signature Version 4 (path-style, the payload's SHA-256 signed).
"""

import hashlib
import hmac
import http.client
import time
import xml.etree.ElementTree as ET
from urllib.parse import quote

REGION = "us-east-1"
NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"


class Bucket:
    def __init__(self, port, bucket, key, secret):
        self.port, self.bucket, self.key, self.secret = port, bucket, key, secret

    def _request(self, method, object_key="", query=None, body=b"", timeout=10):
        path = f"/{self.bucket}" + (f"/{quote(object_key, safe='/~')}" if object_key else "")
        query = sorted((query or {}).items())
        canonical_query = "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in query)
        now = time.gmtime()
        amz_date = time.strftime("%Y%m%dT%H%M%SZ", now)
        day = amz_date[:8]
        payload_hash = hashlib.sha256(body).hexdigest()
        host = f"127.0.0.1:{self.port}"
        headers = {"host": host, "x-amz-content-sha256": payload_hash, "x-amz-date": amz_date}
        signed = ";".join(sorted(headers))
        canonical = "\n".join([
            method, path, canonical_query,
            "".join(f"{k}:{headers[k]}\n" for k in sorted(headers)), signed, payload_hash,
        ])
        scope = f"{day}/{REGION}/s3/aws4_request"
        to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
        signing_key = ("AWS4" + self.secret).encode()
        for part in (day, REGION, "s3", "aws4_request"):
            signing_key = hmac.new(signing_key, part.encode(), hashlib.sha256).digest()
        signature = hmac.new(signing_key, to_sign.encode(), hashlib.sha256).hexdigest()
        headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={self.key}/{scope}, "
                                    f"SignedHeaders={signed}, Signature={signature}")
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path + (f"?{canonical_query}" if canonical_query else ""), body=body or None,
                         headers=headers)
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    def writable(self):
        """Whether the store takes a write and gives it back: up, the bucket there, and ready to
        store (a store can list before it can write, while its parts register with each other)."""
        probe = f"probe {time.time()}".encode()
        return (self._request("PUT", "ready-probe", body=probe, timeout=3)[0] == 200
                and self._request("GET", "ready-probe", timeout=3) == (200, probe))

    def keys(self, prefix):
        """Every key under `prefix/`, all pages of the listing."""
        keys, token = [], None
        while True:
            query = {"list-type": "2", "prefix": f"{prefix}/"}
            if token:
                query["continuation-token"] = token
            status, body = self._request("GET", query=query)
            if status != 200:
                raise AssertionError(f"listing {self.bucket}/{prefix}/: {status} {body[:300]!r}")
            root = ET.fromstring(body)
            keys += [c.findtext(f"{NS}Key") for c in root.iter(f"{NS}Contents")]
            token = root.findtext(f"{NS}NextContinuationToken")
            if root.findtext(f"{NS}IsTruncated") != "true" or not token:
                return keys

    def get(self, key):
        status, body = self._request("GET", key)
        if status != 200:
            raise AssertionError(f"reading {self.bucket}/{key}: {status} {body[:300]!r}")
        return body

    def put(self, key, body, timeout=120):
        """Writes an object as any client of the bucket could (an operator, another program); the
        store's status."""
        return self._request("PUT", key, body=body, timeout=timeout)[0]

    def delete(self, key):
        """Removes an object (as a lifecycle rule or an operator would); the store's status."""
        return self._request("DELETE", key)[0]

    def objects(self, prefix):
        """Every object under `prefix/`: name after the prefix -> bytes. A key listed and then gone
        before it is read (a quota sweep between the two requests) is not one of them."""
        found = {}
        for k in self.keys(prefix):
            status, body = self._request("GET", k)
            if status == 404:
                continue
            if status != 200:
                raise AssertionError(f"reading {self.bucket}/{k}: {status} {body[:300]!r}")
            found[k[len(prefix) + 1:]] = body
        return found
