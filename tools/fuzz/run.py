"""Run the fuzzing harness.

    python -m tools.fuzz --iterations 1000000 --seed 1 --jobs 1          # every decode path, isolated
    python -m tools.fuzz --engine framing --iterations 100000 --seed 1    # framing only, in process
    python tools/fuzz/run.py --iterations 1000 --seed 7
    python -m tools.fuzz --engine atheris --iterations 100000 --seed 3   # coverage-guided (libFuzzer)

The default engine (``full``, :mod:`tools.fuzz.isolate`) runs framing, content and damaged-table inputs
through every public decode path in worker subprocesses, and reports untyped exceptions, inputs over 5 s,
worker deaths (aborts) and hangs, and the peak memory. The ``framing`` engine draws every choice from a PRNG seeded with (seed, iteration number), so a run is
deterministic and any failing input is reproduced by ``--seed S --start I --iterations 1``. The
atheris engine lets libFuzzer's coverage feedback drive the same mutations (its ``-runs`` and
``-seed`` come from --iterations and --seed). Prints the count, the time and the failures; failing
inputs are written to --failures-dir. Exit status 1 when any input broke the property.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: python tools/fuzz/run.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

_BASES = None


def load_bases(use_corpus: bool = True, use_generated: bool = True):
    from tools.fuzz import harness

    bases = []
    if use_corpus:
        bases += harness.corpus_bases()
    if use_generated:
        bases += harness.generated_bases()
    if not bases:
        raise SystemExit("no base files: the corpus is missing and generated files are off")
    return bases


def run_range(seed: int, start: int, stop: int, bases=None, exercise_content: bool = True, to_bytes: bool = False):
    """Fuzz iterations [start, stop). Returns (count, failures as (iteration, ops, messages, data))."""
    from tools.fuzz import harness

    bases = bases if bases is not None else _BASES
    failures = []
    for i in range(start, stop):
        ch = harness.RandomChooser(random.Random(f"{seed}:{i}"))
        m = harness.mutate(ch, bases)
        try:
            msgs = harness.check(m, exercise_content=exercise_content, to_bytes=to_bytes)
        except Exception as e:  # noqa: BLE001 - a bug in the harness itself is a failure too
            msgs = [f"harness error {type(e).__name__}: {e}"]
        if msgs:
            failures.append((i, f"{m.base.name}: {'; '.join(m.ops)}", msgs, m.data))
    return stop - start, failures


def _kind(msg: str) -> str:
    """A failure message with its numbers and quoted details removed, to count failures by kind."""
    import re

    msg = re.sub(r"raised (\w+): .*", r"raised \1", msg)
    return re.sub(r"\d+", "N", msg)


def _worker(args):
    seed, start, stop, to_bytes = args
    return run_range(seed, start, stop, to_bytes=to_bytes)


def _save(failures, out_dir: Path, seed: int) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for i, ops, msgs, data in failures:
        (out_dir / f"seed{seed}-it{i}.log").write_bytes(data)
        (out_dir / f"seed{seed}-it{i}.txt").write_text(ops + "\n" + "\n".join(msgs) + "\n")


def _run_random(args) -> int:
    global _BASES
    t0 = time.perf_counter()
    _BASES = load_bases(not args.no_corpus, not args.no_generated)
    print(f"{len(_BASES)} base files ({sum(len(b.blocks) for b in _BASES)} blocks) loaded in "
          f"{time.perf_counter() - t0:.1f}s", flush=True)
    chunk = max(1, min(args.chunk, args.iterations // max(1, args.jobs) or 1))
    ranges = [(args.seed, s, min(s + chunk, args.start + args.iterations), args.to_bytes)
              for s in range(args.start, args.start + args.iterations, chunk)]
    done = 0
    failures = []
    t0 = time.perf_counter()
    last = t0
    if args.jobs > 1:
        ctx = mp.get_context("fork")
        with ctx.Pool(args.jobs) as pool:
            results = pool.imap_unordered(_worker, ranges)
            for n, f in results:
                done += n
                failures += f
                now = time.perf_counter()
                if now - last >= args.progress:
                    last = now
                    print(f"  {done} inputs, {now - t0:.0f}s, {done / (now - t0):.0f}/s, {len(failures)} failures", flush=True)
    else:
        for r in ranges:
            n, f = _worker(r)
            done += n
            failures += f
            now = time.perf_counter()
            if now - last >= args.progress:
                last = now
                print(f"  {done} inputs, {now - t0:.0f}s, {done / (now - t0):.0f}/s, {len(failures)} failures", flush=True)
    elapsed = time.perf_counter() - t0
    failures.sort(key=lambda f: f[0])
    print(f"fuzzed inputs: {done}")
    print(f"time: {elapsed:.1f}s ({done / elapsed if elapsed else 0:.0f} inputs/s, {args.jobs} job(s))")
    print(f"failures: {len(failures)}")
    kinds: dict[str, int] = {}
    for _i, _ops, msgs, _data in failures:
        for msg in set(_kind(m) for m in msgs):
            kinds[msg] = kinds.get(msg, 0) + 1
    for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {n:8d} x {k}")
    for i, ops, msgs, _data in failures[:20]:
        print(f"  --seed {args.seed} --start {i} --iterations 1: {ops}")
        for msg in msgs[:5]:
            print(f"      {msg}")
    if failures:
        _save(failures, Path(args.failures_dir), args.seed)
        print(f"failing inputs written to {args.failures_dir}")
    return 1 if failures else 0


def _run_atheris(args) -> int:
    import atheris

    with atheris.instrument_imports():
        import hudi_log  # noqa: F401
        import hudi_log.format.content.avro  # noqa: F401
        import hudi_log.format.content.deletes  # noqa: F401
        import hudi_log.format.content.hfile  # noqa: F401
        from tools.fuzz import harness
    bases = load_bases(not args.no_corpus, not args.no_generated)
    print(f"{len(bases)} base files loaded", flush=True)
    Path(args.failures_dir).mkdir(parents=True, exist_ok=True)

    def test_one_input(data: bytes) -> None:
        m = harness.mutate(harness.ProviderChooser(atheris.FuzzedDataProvider(data)), bases)
        msgs = harness.check(m, to_bytes=args.to_bytes)
        if msgs:
            raise AssertionError(f"{m.base.name}: {'; '.join(m.ops)}\n" + "\n".join(msgs))

    t0 = time.perf_counter()
    argv = [sys.argv[0], f"-runs={args.iterations}", f"-seed={args.seed}",
            f"-artifact_prefix={args.failures_dir.rstrip('/')}/", "-max_len=256", "-print_final_stats=1"]
    atheris.Setup(argv, test_one_input)
    try:
        atheris.Fuzz()  # libFuzzer prints the run count and exits
    finally:
        print(f"time: {time.perf_counter() - t0:.1f}s")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--iterations", type=int, default=10_000, help="number of fuzzed inputs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first iteration number (to replay one input)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (random engine)")
    p.add_argument("--chunk", type=int, default=2000, help="iterations per work unit")
    p.add_argument("--engine", choices=("full", "framing", "random", "atheris"), default="full",
                   help="full: every decode path, isolated (default); framing (or random): framing mutations "
                        "in process; atheris: coverage-guided framing mutations")
    p.add_argument("--to-bytes", action="store_true",
                   help="also require LogBlock.to_bytes() to work (typed errors only) on touched intact blocks")
    p.add_argument("--no-corpus", action="store_true", help="generated base files only")
    p.add_argument("--no-generated", action="store_true", help="corpus base files only")
    p.add_argument("--no-tables", action="store_true", help="full engine: no damaged-table inputs")
    p.add_argument("--as-limit-mb", type=int, default=4096,
                   help="full engine: the worker's address-space limit (RLIMIT_AS); thread pools (stacks, malloc "
                        "arenas) need more than 2 GB of it, so the 1 GB target is held on the measured peak RSS")
    p.add_argument("--progress", type=float, default=30.0, help="seconds between progress lines")
    p.add_argument("--failures-dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "hudi-log-fuzz-failures"))
    args = p.parse_args(argv)
    if args.engine == "atheris":
        return _run_atheris(args)
    if args.engine == "full":
        from tools.fuzz.isolate import run_full

        return run_full(args)
    return _run_random(args)


if __name__ == "__main__":
    sys.exit(main())
