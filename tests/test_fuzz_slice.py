"""A short, deterministic slice of the fuzzing harness in tools/fuzz (the tool itself runs as long as
asked: python -m tools.fuzz --iterations N --seed S --jobs 2)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tools.fuzz import harness  # noqa: E402
from tools.fuzz.run import main as fuzz_main, run_range  # noqa: E402

import hudi_log  # noqa: E402
from hudi_log.format.grammar import MAGIC  # noqa: E402


@pytest.fixture(scope="module")
def generated():
    return harness.generated_bases()


@pytest.fixture(scope="module")
def corpus(corpus_dir, tmp_path_factory):
    bases = harness.corpus_bases(corpus_dir, str(tmp_path_factory.mktemp("fuzz_corpus")))
    assert any(len(b.blocks) > 1 for b in bases), "expected concatenated multi-block files"
    return bases


def _assert_clean(failures):
    assert not failures, "\n".join(f"iteration {i}: {ops}\n  " + "\n  ".join(msgs) for i, ops, msgs, _ in failures[:5])


def test_slice_generated(generated):
    n, failures = run_range(seed=11, start=0, stop=3000, bases=generated)
    assert n == 3000
    _assert_clean(failures)


def test_slice_corpus(corpus, generated):
    n, failures = run_range(seed=12, start=0, stop=4000, bases=corpus + generated)
    assert n == 4000
    _assert_clean(failures)


def test_slice_is_deterministic(generated):
    def mutants(seed):
        out = []
        for i in range(200):
            m = harness.mutate(harness.RandomChooser(random.Random(f"{seed}:{i}")), generated)
            out.append((m.data, m.untouched, m.ops))
        return out

    assert mutants(5) == mutants(5)
    assert mutants(5) != mutants(6)


def test_untouched_tracking(generated):
    base = generated[0]
    b1 = base.blocks[1]
    ed = harness._Editor(base)
    ed.replace(b1.offset, b1.offset, b"junk", "insert at a block start")  # touches nothing, shifts 1..n
    assert ed.track[0] == 0 and ed.track[1] == b1.offset + 4
    ed.replace(b1.offset + 4 + 10, b1.offset + 4 + 11, b"\0", "flip inside block 1")
    assert 1 not in ed.track and 2 in ed.track
    ed.replace(0, 3, b"", "delete the first magic's head")
    assert 0 not in ed.track and ed.track[2] == base.blocks[2].offset + 4 - 3


def test_the_property_catches_a_reader_that_loses_blocks(generated, monkeypatch):
    real = hudi_log.open_log

    def lossy(data, strict=False):  # drops the last block: an untouched block goes missing
        return list(real(data, strict=strict))[:-1]

    monkeypatch.setattr(hudi_log, "open_log", lossy)
    m = harness.Mutant(generated[0], generated[0].data, {i: b.offset for i, b in enumerate(generated[0].blocks)}, [])
    msgs = harness.check(m)
    assert any("not found intact" in s for s in msgs) and any("blocks end at" in s for s in msgs)


def test_the_property_catches_untyped_errors(generated, monkeypatch):
    def broken(data, strict=False):
        raise MemoryError("size field trusted")

    monkeypatch.setattr(hudi_log, "open_log", broken)
    m = harness.Mutant(generated[0], MAGIC + b"\x40" + b"\0" * 7, {}, [])
    assert any("MemoryError" in s for s in harness.check(m))


def test_cli_runs(capsys):
    assert fuzz_main(["--iterations", "300", "--seed", "4", "--no-corpus", "--progress", "1000"]) == 0
    out = capsys.readouterr().out
    assert "fuzzed inputs: 300" in out and "failures: 0" in out
