"""Files that must never be replaced, created with the store's put-if-absent (issue 35, deliverable 5):
S3's ``If-None-Match: *`` through hudi_log/conditional_put.py, against the local moto server, which enforces
it (412 PreconditionFailed). Two writers completing one instant: exactly one succeeds, the other gets a typed
error naming the instant, and the first's completed instant is intact. The same on local disk (hard link)."""

from __future__ import annotations

import pickle
import threading
import warnings

import pyarrow as pa
import pyarrow.fs as pafs
import pytest

from hudi_log import conditional_put
from hudi_log.paths import RemotePath, as_path, create_new
from hudi_log.table import read_table
from hudi_log.table.concurrency.config import concurrency_config
from hudi_log.table.concurrency.heartbeat import Heartbeat
from hudi_log.table.errors import InstantTakenError, WriteConflictError
from hudi_log.table.properties import read_properties
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.timeline.writer import TimelineWriteError, TimelineWriter
from hudi_log.table.write.client import begin_write, write_table
from hudi_log.table.write.task import write_batches


def opts(version: int) -> dict:
    return {"hoodie.table.name": "lake", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": "COPY_ON_WRITE", "hoodie.write.table.version": str(version)}


def batch(ids, tag: str) -> pa.Table:
    return pa.table({"id": [f"k{i:03d}" for i in ids], "val": [f"{tag}{i}" for i in ids], "ts": [1] * len(ids),
                     "part": ["p0"] * len(ids)})


def test_create_new_on_s3_refuses_an_existing_key_even_when_the_check_is_bypassed(s3, monkeypatch):
    """The store decides, not a look before the PUT: with ``exists`` made to say "absent" (another writer's
    PUT landing between a check and a write), the second create still fails and the first bytes stay."""
    target = as_path(f"{s3.base}/t/.hoodie/20260101000000000.commit")
    create_new(target, b"first")
    monkeypatch.setattr(RemotePath, "exists", lambda self: False)
    with s3.counting() as n:
        with pytest.raises(FileExistsError) as e:
            create_new(target, b"second")
    assert str(target) in str(e.value)
    assert n["PUT"] == 1 and n["HEAD"] == 0 and n["GET"] == 0  # one conditional PUT, no look first
    assert target.read_bytes() == b"first"


def test_heartbeat_reservation_and_requested_file_are_put_if_absent(s3):
    """Reserving an instant time (its heartbeat) and requesting it are creates the store arbitrates: a
    second writer with the same time gets FileExistsError / a typed timeline error, and nothing is replaced."""
    path = f"{s3.base}/t"
    write_table(path, batch(range(3), "a"), "insert", opts(8))
    props = read_properties(path)
    cfg = concurrency_config({})
    instant = "20991231235959000"
    first = Heartbeat(path, instant, cfg).start(exclusive=True)
    try:
        with pytest.raises(FileExistsError):
            Heartbeat(path, instant, cfg).start(exclusive=True)
    finally:
        first.stop()
    tw = TimelineWriter(path, props)
    tw.requested("commit", instant, b"mine")
    with pytest.raises(TimelineWriteError, match=instant):
        tw.requested("commit", instant, b"theirs")
    assert (tw.folder / f"{instant}.commit.requested").read_bytes() == b"mine"


def test_lock_file_is_taken_by_one_of_two(s3):
    from hudi_log.table.concurrency.lock import FileSystemLock

    cfg = concurrency_config({"hoodie.write.concurrency.mode": "OPTIMISTIC_CONCURRENCY_CONTROL",
                              "hoodie.write.lock.provider": "FileSystemBasedLockProvider"})
    a, b = FileSystemLock(f"{s3.base}/t", cfg), FileSystemLock(f"{s3.base}/t", cfg)
    assert a.try_lock()
    held = a.path.read_bytes()
    assert not b.try_lock()
    assert a.path.read_bytes() == held
    a.unlock()
    assert b.try_lock()
    b.unlock()


@pytest.mark.parametrize("where", ["s3", "local"])
def test_two_writers_completing_one_instant(where, request, tmp_path, monkeypatch):
    """Two writers holding one instant (a copy of one write transaction, each writing its own rows) pass every
    check before either writes its completed file; the store (S3's If-None-Match, a hard link on disk) lets
    one through. The other raises InstantTakenError naming the instant and removes its own files; the
    winner's completed instant and rows are intact. Table version 6 (layout 1): the completed file's name is
    the same for both, ``{instant}.commit``."""
    if where == "s3":
        path = f"{request.getfixturevalue('s3').base}/t"
    else:
        path = str(tmp_path / "t")
    # no metadata table: two drivers on one instant without a lock race for the data table's completed file
    # (a metadata table, kept under the lock Java requires of several writers, is not part of this race)
    o = {**opts(6), "hoodie.metadata.enable": "false"}
    write_table(path, batch(range(4), "base"), "insert", o)
    tx_a = begin_write(path, "insert", o, schema=batch([0], "").schema)
    tx_b = pickle.loads(pickle.dumps(tx_a))  # the same instant, as a second driver would hold it
    rows = {"a": batch(range(10, 14), "a"), "b": batch(range(20, 24), "b")}
    stats = {"a": write_batches(tx_a.context, rows["a"], 0), "b": write_batches(tx_b.context, rows["b"], 1)}
    assert stats["a"] and stats["b"]

    both_checked = threading.Barrier(2, timeout=120)
    check = TimelineWriter._check_not_completed

    def check_then_wait(self, action, instant):
        check(self, action, instant)
        both_checked.wait()  # neither writes its completed file before both have checked

    outcome: dict = {}

    def commit(name, tx):
        try:
            outcome[name] = tx.commit(stats[name])
        except BaseException as e:  # noqa: BLE001 - recorded for the assertions
            outcome[name] = e

    with monkeypatch.context() as m:
        m.setattr(TimelineWriter, "_check_not_completed", check_then_wait)
        threads = [threading.Thread(target=commit, args=(n, t)) for n, t in (("a", tx_a), ("b", tx_b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    won = [n for n, r in outcome.items() if not isinstance(r, BaseException)]
    lost = [n for n, r in outcome.items() if isinstance(r, BaseException)]
    assert len(won) == 1 and len(lost) == 1, outcome
    err = outcome[lost[0]]
    assert isinstance(err, InstantTakenError) and isinstance(err, WriteConflictError), repr(err)
    assert err.instant == tx_a.instant and tx_a.instant in str(err)

    props = read_properties(path)
    timeline = Timeline(path, props)
    done = [i for i in timeline.instants if i.requested_time == tx_a.instant and i.is_completed]
    assert len(done) == 1 and done[0].file_name == f"{tx_a.instant}.commit"
    written = {s["path"] for ss in timeline.commit_metadata(done[0])["partitionToWriteStats"].values() for s in ss}
    assert written == {s["path"] for s in stats[won[0]]}  # the winner's metadata, not replaced
    base = as_path(path)
    assert all((base / p).exists() for p in written)
    assert not any((base / s["path"]).exists() for s in stats[lost[0]])  # the loser's files are gone
    got = dict(zip(*[read_table(path)[c].to_pylist() for c in ("id", "val")]))
    expect = {f"k{i:03d}": f"base{i}" for i in range(4)}
    expect.update(zip(rows[won[0]]["id"].to_pylist(), rows[won[0]]["val"].to_pylist()))
    assert got == expect


class _FakeS3:
    """A boto3 client stand-in that answers each PUT from a list of (HTTP status, error code[, retries made]),
    and each GET with ``stored``."""

    def __init__(self, answers, stored: bytes = b""):
        self.answers, self.calls, self.stored = list(answers), [], stored

    def put_object(self, **kw):
        from botocore.exceptions import ClientError

        self.calls.append(kw)
        status, code, *retries = self.answers.pop(0)
        if status != 200:
            meta = {"HTTPStatusCode": status, "RetryAttempts": retries[0] if retries else 0}
            raise ClientError({"Error": {"Code": code, "Message": code}, "ResponseMetadata": meta}, "PutObject")
        return {}

    def get_object(self, **kw):
        import io

        return {"Body": io.BytesIO(self.stored)}


def test_conflicts_are_retried_and_other_refusals_are_typed(monkeypatch):
    monkeypatch.setattr(conditional_put, "_unsupported", set())
    monkeypatch.setattr(conditional_put.time, "sleep", lambda s: None)
    fake = _FakeS3([(409, "ConditionalRequestConflict"), (409, "ConditionalRequestConflict"), (200, "")])
    monkeypatch.setattr(conditional_put, "_client", lambda kw: fake)
    assert conditional_put.s3_put_if_absent("s3://b/k", "b", "k", b"x", {}) is True
    assert len(fake.calls) == 3 and all(c["IfNoneMatch"] == "*" for c in fake.calls)
    fake.answers = [(403, "AccessDenied")]
    with pytest.raises(conditional_put.ConditionalPutError, match=r"s3://b/k: .*AccessDenied") as e:
        conditional_put.s3_put_if_absent("s3://b/k", "b", "k", b"x", {})
    assert isinstance(e.value, OSError)


def test_a_retried_put_whose_first_try_landed_is_a_success(monkeypatch):
    """boto3 retries a PUT whose answer was lost (a timeout, a 5xx); if the first try landed, the retry meets
    412. The object then holding exactly these bytes means it is this write's own (never for empty files,
    which two writers' could not be told apart)."""
    monkeypatch.setattr(conditional_put, "_unsupported", set())
    fake = _FakeS3([(412, "PreconditionFailed", 1)], stored=b"mine")
    monkeypatch.setattr(conditional_put, "_client", lambda kw: fake)
    assert conditional_put.s3_put_if_absent("s3://b/k", "b", "k", b"mine", {}) is True
    for answer, stored, data in (((412, "PreconditionFailed", 1), b"theirs", b"mine"),  # another's bytes
                                 ((412, "PreconditionFailed", 0), b"mine", b"mine"),  # no retry: not ours
                                 ((412, "PreconditionFailed", 1), b"", b"")):  # empty: cannot tell
        fake.answers, fake.stored = [answer], stored
        with pytest.raises(FileExistsError):
            conditional_put.s3_put_if_absent("s3://b/k", "b", "k", data, {})


def test_a_store_without_conditional_writes_falls_back_to_check_then_put(s3, monkeypatch):
    """An S3-compatible store answering 501 NotImplemented: said once as a warning, then check-then-PUT."""
    monkeypatch.setattr(conditional_put, "_unsupported", set())
    fake = _FakeS3([(501, "NotImplemented")])
    monkeypatch.setattr(conditional_put, "_client", lambda kw: fake)
    target = as_path(f"{s3.base}/t/.hoodie/lock")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        create_new(target, b"one")
    assert any("no conditional writes" in str(w.message) for w in seen)
    assert target.read_bytes() == b"one"
    with pytest.raises(FileExistsError):
        create_new(target, b"two")  # the check, now: the store is not asked again
    assert len(fake.calls) == 1 and target.read_bytes() == b"one"


def test_s3a_options_reach_the_conditional_put(s3, monkeypatch):
    """The same endpoint and credentials as the table's pyarrow file system: from fs.s3a.* options alone."""
    from hudi_log import paths

    for k in s3.env():
        monkeypatch.delenv(k)
    monkeypatch.setattr(paths, "_options", dict(s3.options()))
    monkeypatch.setattr(paths, "_filesystems", {})
    target = as_path(f"{s3.base}/t/x")
    create_new(target, b"via options")
    with pytest.raises(FileExistsError):
        create_new(target, b"again")
    bucket = s3.base.removeprefix("s3://")
    with s3.filesystem().open_input_file(f"{bucket}/t/x") as f:
        assert f.read() == b"via options"
    assert s3.filesystem().get_file_info(f"{bucket}/t/x").type == pafs.FileType.File


def test_cli_says_a_refused_conditional_write_in_one_line_exit_3():
    """A conditional write the store refused for another reason (credentials, network) broke the operation
    midway: the CLI's exit 3, with the object named."""
    from hudi_log.cli.output import EXIT_FAILED, error_message, exit_code_for

    e = conditional_put.ConditionalPutError("s3://lake/t/.hoodie/1.commit", "AccessDenied (HTTP 403): no")
    assert exit_code_for(e) == EXIT_FAILED
    assert "s3://lake/t/.hoodie/1.commit" in error_message(e)


def test_two_writers_reading_one_instant_time_reserve_two_instants(s3, monkeypatch):
    """Timeline layout 2 (table version 8) names a completed instant after its completion time, so two
    writers holding one instant would not aim at one completed name: there the reservation of the instant
    time keeps them apart. Two writers that read the same new time at once (released together): the store
    gives its heartbeat to one, and the other moves on to a later time."""
    from hudi_log.table.concurrency.heartbeat import reserve_instant

    path = f"{s3.base}/t"
    write_table(path, batch(range(3), "a"), "insert", opts(8))
    props = read_properties(path)
    cfg = concurrency_config({})
    same = "20991231235959000"
    real = TimelineWriter.new_instant_time
    together = threading.Barrier(2, timeout=120)
    first = threading.local()

    def same_time_first(self):
        if not getattr(first, "taken", False):
            first.taken = True
            together.wait()  # both have read the same time before either reserves it
            self._last = same
            return same
        return real(self)

    monkeypatch.setattr(TimelineWriter, "new_instant_time", same_time_first)
    got: dict = {}

    def reserve(name):
        instant, beat = reserve_instant(path, TimelineWriter(path, props), cfg)
        beat.stop(delete=False)
        got[name] = instant

    threads = [threading.Thread(target=reserve, args=(n,)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got.values())[0] == same and len(set(got.values())) == 2, got
