"""Timeline archival stopped in the middle (issue 20, item 5: a kill in the middle of each service, then
recovery), version 6. Archival writes the archive block first and only then deletes the instant files, so a
process killed between the two, or halfway through the deletes, leaves every instant either still on the
active timeline or in the archive (or both): reads are unchanged, and the next archival finishes the job.

The kill is simulated by an interrupt raised at the chosen point, in the same process, as the restore and
clean tests do; the real SIGKILL tests of writes, compaction and clustering are in test_table_write_kill.py
and test_clustering.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import hudi_log.table.services.archive as archive_mod
from hudi_log.table import HudiTable
from hudi_log.table.services.archive import archive, read_archive
from test_archive_savepoint import SMALL, stream
from test_table_services import hudi_rs, snapshot


class Killed(BaseException):
    """Stands for SIGKILL: not an Exception, so nothing on the way catches it."""


def _check_recovered(base, instants, states):
    tl = HudiTable(base).timeline
    archived = {a.commit_time for a in read_archive(base) if a.state == "COMPLETED"}
    assert archived | tl.completed_commit_times() == set(instants)
    for k, inst in enumerate(instants):  # every point in time reads as it did
        assert snapshot(base, as_of=inst) == states[k], k
    assert snapshot(base) == states[-1] == hudi_rs(base)


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_killed_after_the_archive_block_before_the_deletes(tmp_path, monkeypatch, table_type):
    base = tmp_path / "t"
    o = {**SMALL, "hoodie.archive.automatic": "false", "hoodie.compact.inline.max.delta.commits": "1"}
    instants, states = stream(base, 8, 6, table_type, o)
    real = archive_mod._write

    def dies_after_writing(*a):
        real(*a)
        raise Killed()

    monkeypatch.setattr(archive_mod, "_write", dies_after_writing)
    with pytest.raises(Killed):
        archive(base, o)
    monkeypatch.setattr(archive_mod, "_write", real)
    assert read_archive(base)  # the block is there, every instant file too
    assert set(instants) <= HudiTable(base).timeline.completed_commit_times()
    assert snapshot(base) == states[-1]
    assert archive(base, o)  # the next run archives them again and deletes them
    assert len(HudiTable(base).timeline.completed_commits()) <= 3
    _check_recovered(base, instants, states)


def test_killed_halfway_through_the_deletes(tmp_path, monkeypatch):
    base = tmp_path / "t"
    instants, states = stream(base, 8, 6, "COPY_ON_WRITE", {"hoodie.archive.automatic": "false"})
    real_unlink, calls = Path.unlink, []

    def dies_on_the_fourth(self, *a, **k):
        if ".hoodie" in self.parts and len(calls) == 3:
            raise Killed()
        calls.append(self.name)
        return real_unlink(self, *a, **k)

    monkeypatch.setattr(Path, "unlink", dies_on_the_fourth)
    with pytest.raises(Killed):
        archive(base, SMALL)
    monkeypatch.setattr(Path, "unlink", real_unlink)
    assert len(calls) == 3  # some instant files gone, the rest still there
    assert snapshot(base) == states[-1] == hudi_rs(base)
    archive(base, SMALL)
    assert len(HudiTable(base).timeline.completed_commits()) <= 3
    _check_recovered(base, instants, states)
