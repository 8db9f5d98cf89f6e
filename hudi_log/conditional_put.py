"""Put-if-absent on object stores: a file that must never be replaced (a completed or requested instant,
the file-system lock, the heartbeat that reserves an instant time) is created by the store's own
conditional write, so of two writers aiming at one name exactly one succeeds.

Java Hudi creates such files with ``HoodieStorage.createImmutableFileInPath`` (``create(path,
overwrite=false)``), which Hadoop's S3A turns into a PUT with ``If-None-Match: *`` where the store offers
conditional writes (HADOOP-19256); ``pyarrow.fs`` cannot send that header, so hudi-log sends it through
boto3, the AWS SDK for Python, with the same endpoint, credentials and addressing as the table's
``pyarrow.fs.S3FileSystem`` (:func:`hudi_log.paths.filesystem_for`: ``fs.s3a.*`` options, else ``AWS_*``
and the SDK's own chain, which both SDKs share: environment, profiles, web identity, instance roles).

Per store:

* **S3** (and S3-compatible stores that honour the header): ``PutObject`` with ``If-None-Match: *``. 412
  ``PreconditionFailed``: the key exists, ``FileExistsError`` (unless boto3 had retried the PUT and the
  object holds exactly these non-empty bytes: the first try landed and its answer was lost). 409 ``ConditionalRequestConflict`` (another
  conditional write of the key is in flight): retried, as AWS asks. 501 ``NotImplemented`` (a store without
  conditional writes): :func:`s3_put_if_absent` answers False and the caller checks, then writes.
* **GCS and Azure**: their preconditions (``ifGenerationMatch=0``, ``If-None-Match: *``) exist, but
  pyarrow's file systems do not send them and hudi-log brings no second SDK for them: there a new file is
  checked for, then written (:func:`hudi_log.paths.create_new`), under Hudi's single-writer rule.

Why boto3 and not obstore (the Rust ``object_store`` binding, which covers GCS and Azure too): obstore's
S3 credential chain has no AWS profiles or SSO, so a table that pyarrow writes with a profile's keys would
fail at its commit; obstore also needs Python 3.11.
"""

from __future__ import annotations

import errno
import threading
import time
import warnings

from .errors import HudiLogError

#: attempts at a PUT that S3 answers 409 ConditionalRequestConflict (another conditional write of the same
#: key in flight); after it the other's outcome decides, and the next attempt sees it
CONFLICT_ATTEMPTS = 6

_clients: dict[tuple, object] = {}
_unsupported: set[tuple] = set()  # (endpoint, bucket) that answered 501: no conditional writes there
_lock = threading.Lock()


class ConditionalPutError(HudiLogError, OSError):
    """A conditional write the store did not take, for a reason other than the key existing (credentials,
    network, a refused request): names the object and the store's answer."""

    def __init__(self, uri: str, why: str):
        self.uri = uri
        super().__init__(f"{uri}: conditional write (If-None-Match) failed: {why}")

    def __str__(self) -> str:  # OSError's own str would show only its first argument's errno form
        return self.args[0]


def _client(kw: dict):
    """A boto3 S3 client for ``pyarrow.fs.S3FileSystem`` keyword arguments ``kw`` (made once per ``kw``)."""
    key = tuple(sorted(kw.items()))
    with _lock:
        client = _clients.get(key)
        if client is None:
            import boto3
            from botocore.config import Config

            endpoint = f"{kw.get('scheme') or 'https'}://{kw['endpoint_override']}" \
                if kw.get("endpoint_override") else None
            # pyarrow addresses buckets by path at a given endpoint unless told otherwise; so does this
            style = "virtual" if kw.get("force_virtual_addressing") else ("path" if endpoint else "auto")
            creds = {}
            if kw.get("access_key"):
                creds = {"aws_access_key_id": kw["access_key"], "aws_secret_access_key": kw.get("secret_key", ""),
                         "aws_session_token": kw.get("session_token") or None}
            # a session of its own: boto3's default session is not safe to share between threads
            client = _clients[key] = boto3.session.Session().client(
                "s3", endpoint_url=endpoint, region_name=kw.get("region"), **creds,
                config=Config(s3={"addressing_style": style}, retries={"mode": "standard"}))
    return client


def _holds(client, bucket: str, key: str, data: bytes) -> bool:
    """Whether the object holds exactly ``data`` (after a retried PUT: was the refused key our own write?
    Only for non-empty ``data``: empty files of two writers could not be told apart)."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return client.get_object(Bucket=bucket, Key=key)["Body"].read() == bytes(data)
    except (BotoCoreError, ClientError):
        return False


def s3_put_if_absent(uri: str, bucket: str, key: str, data: bytes, kw: dict) -> bool:
    """PUT ``data`` at ``bucket``/``key`` only if no object is there. True: written. ``FileExistsError``:
    the key exists (the store refused). False: the store has no conditional writes (the caller falls back).
    ``kw``: the table's ``pyarrow.fs.S3FileSystem`` keyword arguments. Other failures: ConditionalPutError."""
    where = (kw.get("endpoint_override"), bucket)
    if where in _unsupported:
        return False
    try:
        from botocore.exceptions import BotoCoreError, ClientError
    except ImportError as e:  # a declared dependency; an install without it cannot write S3 tables safely
        raise ConditionalPutError(uri, f"boto3 is not installed ({e}); install it (pip install boto3)") from e
    try:
        client = _client(kw)
    except BotoCoreError as e:
        raise ConditionalPutError(uri, str(e)) from e
    for attempt in range(CONFLICT_ATTEMPTS):
        try:
            client.put_object(Bucket=bucket, Key=key, Body=bytes(data), IfNoneMatch="*")
            return True
        except ClientError as e:
            err, meta = e.response.get("Error", {}), e.response.get("ResponseMetadata", {})
            code, status = err.get("Code"), meta.get("HTTPStatusCode")
            if status == 412 or code == "PreconditionFailed":
                if meta.get("RetryAttempts") and data and _holds(client, bucket, key, data):
                    return True  # an earlier try of this very PUT landed and its answer was lost
                raise FileExistsError(errno.EEXIST, "file exists (the store refused to replace it)", uri) from None
            if status == 409 or code == "ConditionalRequestConflict":
                time.sleep(0.05 * 2 ** attempt)
                continue
            if status == 501 or code == "NotImplemented":
                warnings.warn(f"{uri}: the store has no conditional writes (If-None-Match); files that must not "
                              "be replaced are checked for, then written, under the single-writer rule",
                              RuntimeWarning, stacklevel=3)
                with _lock:
                    _unsupported.add(where)
                return False
            raise ConditionalPutError(uri, f"{code} (HTTP {status}): {err.get('Message', '')}") from e
        except BotoCoreError as e:
            raise ConditionalPutError(uri, str(e)) from e
    raise ConditionalPutError(uri, f"the store answered 409 ConditionalRequestConflict {CONFLICT_ATTEMPTS} times "
                                   "(other writes of this key kept it busy); try again")
