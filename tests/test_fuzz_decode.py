"""A fixed-seed slice of the full fuzzer (tools/fuzz, docs/security.md, "Decoding untrusted bytes"): framing, raw
content and SCHEMA damage and damaged tables through every public decode path, in a worker subprocess, with 0
untyped exceptions, no abort, no hang. The long run is ``python -m tools.fuzz --iterations 1000000 --jobs 1``."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tools.fuzz import content, harness, isolate  # noqa: E402


def _opts(**kw):
    return SimpleNamespace(**{"as_limit_mb": 4096, "no_corpus": False, "no_tables": False, **kw})


def _clean(rep: isolate.Report) -> str:
    return "\n".join([f"input {i} [{k}] {w}\n  " + "\n  ".join(m) for i, k, w, m in rep.failures[:5]] +
                     [f"input {i} slow {s:.1f}s [{k}] {w}" for i, k, s, w in rep.slow[:5]] +
                     [f"input {i}: {how}" for i, how in rep.deaths[:5]])


def test_content_slice_in_process(corpus_dir):
    bases = harness.corpus_bases(corpus_dir) + harness.generated_bases()
    seeds = content.seeds_from_bases(bases) + content.generated_seeds()
    bad = []
    for i in range(3000):
        m = content.mutate_content(harness.RandomChooser(random.Random(f"ci:{i}")), seeds)
        bad += [f"input {i} {m.seed.name} {m.ops}: {f}" for f in content.check_content(m)]
    assert not bad, "\n".join(bad[:10])


def test_full_engine_slice(corpus_dir, monkeypatch):
    monkeypatch.setenv("HUDI_LOG_CORPUS", str(corpus_dir))
    rep = isolate.run_chunk(seed=35, start=0, stop=1500, opts=_opts(no_tables=True))
    assert rep.done == 1500 and set(rep.by_kind) == {"framing", "content"}
    assert not (rep.failures or rep.slow or rep.deaths), _clean(rep)
    assert 0 < rep.peak_mb < 1024


def _needs_damaged_table_errors():
    import hudi_log.errors

    if not hasattr(hudi_log.errors, "DamagedFileError"):
        # read_table's own typed errors for damaged tables (a garbled base Parquet file, a non-integer
        # hoodie.table.checksum) are issue 35's third deliverable, made on its own branch
        pytest.skip("the damaged-table errors (hudi_log.errors.DamagedFileError and the rest) are not here yet")


def test_damaged_tables_slice():
    _needs_damaged_table_errors()
    from tools.fuzz import tables

    scratch = tables.scratch_dir()
    built = tables.build_tables(scratch + "/seed")
    bad = []
    for i in range(150):
        m = tables.mutate_table(harness.RandomChooser(random.Random(f"tables:{i}")), built, scratch)
        bad += [f"input {i} {m.file} {m.ops}: {f}" for f in tables.check_table(m)]
    assert not bad, "\n".join(bad[:10])


@pytest.mark.slow
def test_full_engine_longer_slice(corpus_dir, monkeypatch):
    monkeypatch.setenv("HUDI_LOG_CORPUS", str(corpus_dir))
    rep = isolate.run_chunk(seed=36, start=0, stop=20000, opts=_opts())
    assert rep.done == 20000
    assert not (rep.failures or rep.slow or rep.deaths), _clean(rep)
    assert rep.peak_mb < 1024


@pytest.mark.parametrize("how", ["abort", "hang"])
def test_the_parent_survives_a_worker_that_aborts_or_hangs(how, monkeypatch):
    monkeypatch.setenv("HUDI_LOG_FUZZ_SELFTEST", f"{how}:3")
    rep = isolate.run_chunk(seed=1, start=0, stop=6, opts=_opts(no_corpus=True, no_tables=True, hard_timeout=3))
    assert rep.done == 6  # the worker is started again after input 3
    assert [i for i, _ in rep.deaths] == [3]
    assert ("signal" in rep.deaths[0][1]) if how == "abort" else ("hang" in rep.deaths[0][1])


def test_the_report_counts_untyped_exceptions(monkeypatch):
    """A decoder that raised a bare ValueError would be reported, not swallowed."""
    from hudi_log import LogBlock

    def broken(self, *a, **k):
        raise ValueError("bare")

    monkeypatch.setattr(LogBlock, "records", broken)
    seeds = content.generated_seeds()
    m = content.mutate_content(harness.RandomChooser(random.Random("x:0")), seeds[:1])
    msgs = content.check_content(m)
    assert any("records() raised ValueError" in s for s in msgs)
