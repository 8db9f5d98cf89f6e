"""A local S3-compatible server for tests and benchmarks: moto's standalone server on a free port,
with every HTTP request it answers counted by kind (LIST, GET, HEAD, PUT, DELETE).

The count is taken on the server's side (moto's request log), so it is what an object store bills and
throttles, whatever the client library does underneath (pyarrow's multipart uploads count as PUTs:
one to start, one per part, one to complete).

    with S3Server() as s3:       # exports nothing; s3.env() is the AWS_* environment for a client
        s3.create_bucket("lake")
        with s3.counting() as n: ...; print(n)
"""

from __future__ import annotations

import collections
import contextlib
import logging
import re
import socket
from typing import Iterator

#: werkzeug's request log line: "METHOD /path?query HTTP/1.1" status
_REQUEST = re.compile(r'"(GET|PUT|POST|HEAD|DELETE) (\S+) HTTP/[\d.]+" (\d+)')
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # werkzeug colours some lines
KINDS = ("LIST", "GET", "HEAD", "PUT", "DELETE")


def request_kind(method: str, target: str) -> str | None:
    """The billing kind of one S3 request (None for moto's own API)."""
    path, _, query = target.partition("?")
    if path.startswith("/moto-api"):
        return None
    is_bucket = path.strip("/").count("/") == 0  # path-style: /bucket is the bucket, /bucket/key an object
    if method == "GET":
        return "LIST" if is_bucket and ("list-type" in query or "prefix=" in query or not query) else "GET"
    if method in ("PUT", "POST"):  # POST: multipart start / complete, and batch deletes
        return "DELETE" if "delete" in query else "PUT"
    return method


class _Counter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.counts: collections.Counter = collections.Counter()
        self.requests: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        m = _REQUEST.search(_ANSI.sub("", record.getMessage()))
        if m:
            kind = request_kind(m.group(1), m.group(2))
            if kind is not None:
                self.counts[kind] += 1
                self.requests.append((kind, m.group(2)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class S3Server:
    """moto's ThreadedMotoServer on 127.0.0.1 and a free port (ImportError without ``moto[server]``)."""

    ACCESS_KEY, SECRET_KEY, REGION = "testing", "testing", "us-east-1"

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._counter = _Counter()
        self._log = logging.getLogger("werkzeug")

    def start(self) -> "S3Server":
        self._log.addHandler(self._counter)
        self._log.setLevel(logging.INFO)
        self._log.propagate = False  # the request lines are counted, not printed
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()
        self._log.removeHandler(self._counter)

    def __enter__(self) -> "S3Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def env(self) -> dict[str, str]:
        """The AWS_* environment that points a client (pyarrow, a subprocess, Spark's Python workers) here."""
        return {"AWS_ACCESS_KEY_ID": self.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": self.SECRET_KEY,
                "AWS_REGION": self.REGION, "AWS_ENDPOINT_URL_S3": self.endpoint,
                "AWS_EC2_METADATA_DISABLED": "true"}

    def options(self) -> dict[str, str]:
        """The same as Hadoop S3A options (Spark options, the CLI's --option)."""
        return {"fs.s3a.endpoint": self.endpoint, "fs.s3a.access.key": self.ACCESS_KEY,
                "fs.s3a.secret.key": self.SECRET_KEY, "fs.s3a.path.style.access": "true",
                "fs.s3a.endpoint.region": self.REGION}

    def filesystem(self):
        import pyarrow.fs as pafs

        return pafs.S3FileSystem(access_key=self.ACCESS_KEY, secret_key=self.SECRET_KEY, region=self.REGION,
                                 endpoint_override=f"127.0.0.1:{self.port}", scheme="http",
                                 allow_bucket_creation=True)

    def create_bucket(self, name: str) -> None:
        self.filesystem().create_dir(name)

    def reset_counts(self) -> None:
        self._counter.counts.clear()
        self._counter.requests.clear()

    @contextlib.contextmanager
    def counting(self) -> Iterator[collections.Counter]:
        """Counts of the requests made inside the block (a Counter filled on leaving it)."""
        out: collections.Counter = collections.Counter()
        before = collections.Counter(self._counter.counts)
        try:
            yield out
        finally:
            out.update(self._counter.counts - before)

    @property
    def requests(self) -> list[tuple[str, str]]:
        return list(self._counter.requests)
