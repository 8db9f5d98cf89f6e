"""The full fuzzing engine: every public decode path, each input watched for time, memory and aborts.

Inputs run in a worker subprocess (``python -m tools.fuzz.isolate --worker ...``) that reports one JSON
line as it starts an input and one when it is done, with the input's time, the process's peak memory
while it ran (VmHWM, reset before each input through /proc/self/clear_refs) and the failures. The parent
(:func:`run_chunk`) restarts the worker after the input it was on when it died (a signal, an abort, a
Rust allocation failure) or ran past ``HARD_TIMEOUT`` seconds; both are findings. The worker's address
space is capped (RLIMIT_AS, ``--as-limit-mb``), so a runaway allocation fails inside it rather than
taking the machine's memory.

Input ``i`` of seed ``s`` is one of (drawn from ``random.Random(f"{s}:{i}")``, so any input is replayed
by ``--seed s --start i --iterations 1``):

* framing (40%): ``harness.mutate`` of a base file, checked by ``harness.check`` with ``to_bytes``;
* content (58%): ``content.mutate_content``, raw content or SCHEMA damage in an intact frame, every decode
  path of every block (``content.check_content``);
* table (2%): one file of a small MERGE_ON_READ table damaged, ``read_table`` (``tables.check_table``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import select
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

REPO = Path(__file__).resolve().parents[2]
SLOW = 5.0  # seconds: an input slower than this is a finding
HARD_TIMEOUT = 60.0  # seconds: the worker is killed and the input reported as a hang
KINDS = (("framing", 40), ("content", 58), ("table", 2))


def kind_of(seed: int, i: int) -> str:
    k = random.Random(f"kind:{seed}:{i}").randrange(100)
    for name, share in KINDS:
        if k < share:
            return name
        k -= share
    return KINDS[-1][0]


# --------------------------------------------------------------------------------------------------
# The worker


class _Context:
    def __init__(self, use_corpus: bool, use_tables: bool):
        from tools.fuzz import content, harness, tables
        from tools.fuzz.run import load_bases

        self.bases = load_bases(use_corpus, True)
        self.seeds = content.seeds_from_bases(self.bases) + content.generated_seeds()
        self.scratch = tables.scratch_dir()
        self.tables = tables.build_tables(os.path.join(self.scratch, "seed")) if use_tables else []
        self.content, self.harness, self.table_mod = content, harness, tables

    def run(self, seed: int, i: int) -> tuple[str, str, list[str]]:
        """(kind, what was done, failures) of input ``i``."""
        ch = self.harness.RandomChooser(random.Random(f"{seed}:{i}"))
        kind = kind_of(seed, i)
        if kind == "table" and not self.tables:
            kind = "content"
        if kind == "framing":
            m = self.harness.mutate(ch, self.bases)
            return kind, f"{m.base.name}: {'; '.join(m.ops)}", self.harness.check(m, to_bytes=True)
        if kind == "content":
            m = self.content.mutate_content(ch, self.seeds)
            return kind, f"{m.seed.name}: {'; '.join(m.ops)}", self.content.check_content(m)
        m = self.table_mod.mutate_table(ch, self.tables, self.scratch)
        return kind, f"{m.table.name} {m.file}: {'; '.join(m.ops)}", self.table_mod.check_table(m)


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets the peak resident set size (VmHWM) to the current one
    except OSError:
        pass


def _peak_mb() -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(args) -> int:
    if args.as_limit_mb:
        limit = args.as_limit_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.environ.setdefault("RUST_BACKTRACE", "0")
    ctx = _Context(not args.no_corpus, not args.no_tables)
    out = sys.stdout
    print(json.dumps({"ready": True, "rss_mb": round(_peak_mb(), 1)}), file=out, flush=True)
    selftest = os.environ.get("HUDI_LOG_FUZZ_SELFTEST", "")  # "abort:I" / "hang:I": the parent's own tests
    for i in range(args.start, args.stop):
        print(json.dumps({"start": i}), file=out, flush=True)
        _reset_peak()
        t0 = time.perf_counter()
        if selftest == f"abort:{i}":
            os.abort()
        if selftest == f"hang:{i}":
            time.sleep(3600)
        try:
            kind, what, failures = ctx.run(args.seed, i)
        except Exception as e:  # noqa: BLE001 - a failure of the harness itself is a finding too
            kind, what, failures = "?", "", [f"harness error {type(e).__name__}: {str(e)[:200]}"]
        sec = time.perf_counter() - t0
        print(json.dumps({"i": i, "kind": kind, "sec": round(sec, 4), "peak_mb": round(_peak_mb(), 1),
                          "what": what[:300], "failures": failures[:10]}), file=out, flush=True)
    # the worker's job ends with its last input: leave without the interpreter's finalization, where a C++
    # thread pool (pyarrow's) still running a task is destroyed and calls std::terminate ("terminate called
    # without an active exception", signal 6; seen in 2 of ~10 runs of 1,500 inputs under load, never during an
    # input), which would be counted against the last input
    out.flush()
    os._exit(0)


# --------------------------------------------------------------------------------------------------
# The parent


@dataclass
class Report:
    done: int = 0
    by_kind: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)  # (i, kind, what, [messages])
    slow: list = field(default_factory=list)  # (i, kind, seconds, what)
    deaths: list = field(default_factory=list)  # (i, how)
    peak_mb: float = 0.0
    peak_at: int = -1
    max_sec: float = 0.0
    max_sec_at: int = -1

    def merge(self, o: "Report") -> None:
        self.done += o.done
        for k, n in o.by_kind.items():
            self.by_kind[k] = self.by_kind.get(k, 0) + n
        self.failures += o.failures
        self.slow += o.slow
        self.deaths += o.deaths
        if o.peak_mb > self.peak_mb:
            self.peak_mb, self.peak_at = o.peak_mb, o.peak_at
        if o.max_sec > self.max_sec:
            self.max_sec, self.max_sec_at = o.max_sec, o.max_sec_at


def _worker_cmd(seed, start, stop, opts) -> list[str]:
    cmd = [sys.executable, "-m", "tools.fuzz.isolate", "--worker", "--seed", str(seed), "--start", str(start),
           "--stop", str(stop), "--as-limit-mb", str(opts.as_limit_mb)]
    if opts.no_corpus:
        cmd.append("--no-corpus")
    if opts.no_tables:
        cmd.append("--no-tables")
    return cmd


def run_chunk(seed: int, start: int, stop: int, opts, on_input=None) -> Report:
    """Inputs [start, stop) in worker subprocesses, restarted after an input that killed or hung one.
    ``on_input(report, i, finding)`` is called after each input (``finding``: a line, or None)."""
    rep = Report()
    tell = on_input or (lambda r, i, finding: None)
    pos = start
    while pos < stop:
        proc = subprocess.Popen(_worker_cmd(seed, pos, stop, opts), cwd=str(REPO), stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=dict(os.environ, RUST_BACKTRACE="0"))
        current, buf, started = None, b"", time.monotonic()
        died = None
        fd = proc.stdout.fileno()
        while True:
            limit = getattr(opts, "hard_timeout", HARD_TIMEOUT) if current is not None else 600.0  # the worker's start-up loads the corpus
            ready, _, _ = select.select([fd], [], [], max(0.0, limit - (time.monotonic() - started)))
            if not ready:
                proc.kill()
                proc.wait()
                died = f"no answer after {limit:.0f}s (hang)"
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                rc = proc.wait()
                if rc != 0 or current is not None:
                    died = f"worker died (exit status {rc}{', signal ' + str(-rc) if rc < 0 else ''})"
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                msg = json.loads(line)
                if "start" in msg:
                    current, started = msg["start"], time.monotonic()
                elif "i" in msg:
                    finding = _record(rep, msg)
                    current, pos, started = None, msg["i"] + 1, time.monotonic()
                    tell(rep, msg["i"], finding)
        if died is not None:
            if current is None:  # it died starting up: nothing more can be done here
                rep.deaths.append((pos, died + " before the first input"))
                break
            rep.deaths.append((current, died))
            rep.done += 1
            pos = current + 1
            tell(rep, current, f"died: --seed {seed} --start {current} --iterations 1: {died}")
    return rep


def _record(rep: Report, msg: dict) -> str | None:
    """Count one input's result; a line naming it when it is a finding."""
    rep.done += 1
    rep.by_kind[msg["kind"]] = rep.by_kind.get(msg["kind"], 0) + 1
    if msg["failures"]:
        rep.failures.append((msg["i"], msg["kind"], msg["what"], msg["failures"]))
    if msg["sec"] > SLOW:
        rep.slow.append((msg["i"], msg["kind"], msg["sec"], msg["what"]))
    if msg["peak_mb"] > rep.peak_mb:
        rep.peak_mb, rep.peak_at = msg["peak_mb"], msg["i"]
    if msg["sec"] > rep.max_sec:
        rep.max_sec, rep.max_sec_at = msg["sec"], msg["i"]
    how = "; ".join(msg["failures"][:3]) or (f"{msg['sec']:.1f}s" if msg["sec"] > SLOW else "")
    return f"finding: input {msg['i']} [{msg['kind']}] {msg['what'][:200]}: {how[:600]}" if how else None


def run_full(args) -> int:
    """``python -m tools.fuzz`` (the default engine): ``args.iterations`` inputs from ``args.start``."""
    from concurrent.futures import ThreadPoolExecutor

    from tools.fuzz.run import _kind

    t0 = time.perf_counter()
    end = args.start + args.iterations
    chunk = max(1, min(args.chunk, -(-args.iterations // max(1, args.jobs))))
    ranges = [(s, min(s + chunk, end)) for s in range(args.start, end, chunk)]
    total = Report()
    lock = threading.Lock()
    live = {"done": 0, "findings": 0, "peak": 0.0, "last": t0}

    def on_input(rep: Report, i: int, finding: str | None) -> None:
        # findings and progress as they come: a run stopped early still says what it found
        with lock:
            live["done"] += 1
            live["peak"] = max(live["peak"], rep.peak_mb)
            if finding:
                live["findings"] += 1
                print(f"  --seed {args.seed} {finding}", flush=True)
            now = time.perf_counter()
            if now - live["last"] >= args.progress:
                live["last"] = now
                print(f"  inputs: {live['done']} ({live['done'] / (now - t0):.0f}/s, {now - t0:.0f}s) "
                      f"findings: {live['findings']} peak: {live['peak']:.0f} MB", flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for rep in pool.map(lambda r: run_chunk(args.seed, r[0], r[1], args, on_input), ranges):
            total.merge(rep)
    elapsed = time.perf_counter() - t0
    print(f"fuzzed inputs: {total.done} ({', '.join(f'{k} {n}' for k, n in sorted(total.by_kind.items()))})")
    print(f"time: {elapsed:.1f}s ({total.done / elapsed if elapsed else 0:.0f} inputs/s, {args.jobs} job(s))")
    print(f"failures: {len(total.failures) + len(total.deaths) + len(total.slow)}")
    print(f"  property failures (untyped exceptions and the rest): {len(total.failures)}")
    print(f"  inputs over {SLOW:.0f}s: {len(total.slow)} (slowest {total.max_sec:.2f}s, input {total.max_sec_at})")
    print(f"  worker deaths or hangs: {len(total.deaths)}")
    print(f"  peak memory of the worker process: {total.peak_mb:.0f} MB (input {total.peak_at})")
    kinds: dict[str, int] = {}
    for _i, _k, _w, msgs in total.failures:
        for m in set(_kind(x) for x in msgs):
            kinds[m] = kinds.get(m, 0) + 1
    for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {n:8d} x {k}")
    for i, kind, what, msgs in sorted(total.failures)[:20]:
        print(f"  --seed {args.seed} --start {i} --iterations 1 [{kind}] {what}")
        for m in msgs[:5]:
            print(f"      {m}")
    for i, kind, sec, what in sorted(total.slow)[:10]:
        print(f"  slow: --seed {args.seed} --start {i} --iterations 1 [{kind}] {sec:.1f}s {what}")
    for i, how in sorted(total.deaths)[:10]:
        print(f"  died: --seed {args.seed} --start {i} --iterations 1: {how}")
    return 1 if (total.failures or total.deaths or total.slow) else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.fuzz.isolate")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--stop", type=int, default=0)
    p.add_argument("--as-limit-mb", type=int, default=0)
    p.add_argument("--no-corpus", action="store_true")
    p.add_argument("--no-tables", action="store_true")
    args = p.parse_args(argv)
    if args.worker:
        return worker(args)
    p.error("run the engine through python -m tools.fuzz")
    return 2


if __name__ == "__main__":
    sys.exit(main())
