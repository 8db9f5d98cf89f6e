"""`hudi-log` commands for table services: ``compact PATH [--schedule-only | --instant T]``,
``compactions show PATH``, ``cluster PATH [--schedule-only | --instant T]``, ``clean PATH [--policy P]
[--retain-commits N | --retain-versions N | --retain-hours N]``
and ``rollback PATH INSTANT``. Errors exit 2
with a message (3 when a service fails half-way, or when it finds its own kind's plan pending with a fresh
heartbeat where another writer may be live: hudi_log/table/services/recovery.py). A plan a killed run left
is recovered and reported, never passed over as "nothing to do"."""

from __future__ import annotations

import json

import click

from ..errors import HudiLogError
from .output import StoragePath, fail as _fail, hudi_options, progress, raise_error

_OPTION = click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE",
                       help="a Hudi option (repeatable), e.g. the lock provider and heartbeat settings")


def _schedule_or_run_command(name: str, what: str, plan_file: str):
    """The arguments compact and cluster share: PATH, --schedule-only, --instant, --json, --option."""
    def decorate(f):
        for d in reversed((click.command(name), click.argument("path", type=StoragePath(exists=True, file_okay=False)),
                           click.option("--schedule-only", is_flag=True, help=f"Only write the {what} plan ({plan_file})."),
                           click.option("--instant", default=None,
                                        help=f"Run this pending {what} instead of scheduling a new one."),
                           click.option("--json", "as_json", is_flag=True, help="Print the result as JSON."), _OPTION)):
            f = d(f)
        return f
    return decorate


@_schedule_or_run_command("compact", "compaction", "compaction.requested")
def compact_cmd(path, schedule_only, instant, as_json, extra):
    """Compact a MERGE_ON_READ table: merge file slices with log files into new base files. Without
    --instant, every pending (scheduled) compaction runs first, oldest first, then a new one is scheduled
    and run, as Hudi's `compaction run` does; each compaction run is reported."""
    from ..table.services.compaction import compact_all, run_compaction, schedule_compaction
    out, done = _schedule_or_run(path, schedule_only, instant, extra, "compacting", schedule_compaction,
                                 run_compaction, compact_all)
    if done is None:
        msg = f"scheduled compaction {out['scheduled']}" if out["scheduled"] else "nothing to compact"
    else:
        runs = [{"instant": r.instant, "files": [s["path"] for s in r.write_stats],
                 "rows": sum(s["numWrites"] for s in r.write_stats), "rolled_back": r.rolled_back} for r in done]
        last = runs[-1] if runs else {"instant": None, "files": [], "rows": 0, "rolled_back": []}
        out = {**last, "compactions": runs}  # the last run's keys stay where they were
        msg = "\n".join(f"compaction {r['instant']}: {len(r['files'])} base file(s), {r['rows']} row(s)"
                        + _rerun(r["rolled_back"]) for r in runs) or "nothing to compact"
    click.echo(json.dumps(out) if as_json else msg)


def _rerun(rolled_back: list[str]) -> str:
    """What a run of a killed service's plan says it did first."""
    return f" (its killed run rolled back by rollback {', '.join(rolled_back)}, then run again)" if rolled_back else ""


def _schedule_or_run(path, schedule_only, instant, extra, label, schedule, run_one, run_all):
    """What compact and cluster share: ``({"scheduled": T or None}, None)`` with --schedule-only, else
    ``(None, the runs completed)``: the given pending instant, or every pending one then a new one."""
    from ..table.read.instants import parse_instant
    if schedule_only and instant:
        _fail("--schedule-only and --instant exclude each other")
    opts = hudi_options(extra)
    try:
        if instant:
            instant = parse_instant(instant, "--instant", path)
        if schedule_only:
            return {"scheduled": schedule(path, opts)}, None
        with progress(None, label):
            return None, ([run_one(path, instant, opts)] if instant else run_all(path, opts))
    except HudiLogError as e:
        raise_error(e)


@_schedule_or_run_command("cluster", "clustering", "the requested instant")
def cluster_cmd(path, schedule_only, instant, as_json, extra):
    """Cluster a table: rewrite small file groups into fewer, larger base files (a replacecommit), as
    Hudi's size-based clustering does (options hoodie.clustering.plan.strategy.*: small.file.limit,
    max.bytes.per.group, target.file.max.bytes, max.num.groups, sort.columns). Without --instant, every
    pending clustering runs first (a killed one is rolled back and run again), then a new one is scheduled
    and run."""
    from ..table.services.clustering import cluster, run_clustering, schedule_clustering
    out, done = _schedule_or_run(path, schedule_only, instant, extra, "clustering", schedule_clustering,
                                 run_clustering, cluster)
    if done is None:
        msg = f"scheduled clustering {out['scheduled']}" if out["scheduled"] else "nothing to cluster"
    else:
        runs = [{"instant": r.instant, "completion_time": r.completion_time,
                 "files": [s["path"] for s in r.write_stats], "rows": sum(s["numWrites"] for s in r.write_stats),
                 "replaced_file_groups": sum(len(v) for v in r.replaced_file_ids.values()),
                 "rolled_back": r.rolled_back} for r in done]
        out = {"clusterings": runs}
        msg = "\n".join(f"clustering {r['instant']}: {r['replaced_file_groups']} file group(s) into "
                        f"{len(r['files'])} base file(s), {r['rows']} row(s)" + _rerun(r["rolled_back"])
                        for r in runs) or "nothing to cluster"
    click.echo(json.dumps(out) if as_json else msg)


@click.group("compactions")
def compactions_cmd():
    """Compaction plans of a MERGE_ON_READ table."""


@compactions_cmd.command("show")
@click.argument("path", type=StoragePath(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON (every operation of every plan).")
def compactions_show_cmd(path, as_json):
    """List the compactions whose plans are on the active timeline: instant, state, file groups, log
    files (oldest first)."""
    from ..table.services.compaction import list_compactions
    try:
        infos = list_compactions(path)
    except HudiLogError as e:
        raise_error(e)
    if as_json:
        click.echo(json.dumps({"compactions": [i.to_dict() for i in infos]}, indent=2))
        return
    if not infos:
        click.echo("no compaction plans on the active timeline")
        return
    click.echo("instant\tstate\tcompleted\tfile groups\tlog files")
    for i in infos:
        d = i.to_dict()
        click.echo(f"{i.instant}\t{i.state}\t{i.completion_time or ''}\t{d['file_groups']}\t{d['log_files']}"
                   + (f"\t(plan unreadable: {i.error})" if i.error else ""))


@click.command("clean")
@click.argument("path", type=StoragePath(exists=True, file_okay=False))
@click.option("--policy", type=click.Choice(["KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS"],
                                            case_sensitive=False), default=None,
              help="hoodie.cleaner.policy (default KEEP_LATEST_COMMITS).")
@click.option("--retain-commits", type=click.IntRange(min=1), default=None,
              help="KEEP_LATEST_COMMITS: keep every file the last N commits need (hoodie.cleaner.commits.retained, "
                   "default 10).")
@click.option("--retain-versions", type=click.IntRange(min=1), default=None,
              help="KEEP_LATEST_FILE_VERSIONS: keep the latest N file slices of each file group "
                   "(hoodie.cleaner.fileversions.retained, default 3).")
@click.option("--retain-hours", type=click.IntRange(min=1), default=None,
              help="KEEP_LATEST_BY_HOURS: keep every file the commits of the last N hours need "
                   "(hoodie.cleaner.hours.retained, default 24).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_OPTION
def clean_cmd(path, policy, retain_commits, retain_versions, retain_hours, as_json, extra):
    """Delete file slices the policy no longer needs (default KEEP_LATEST_COMMITS: those older than the last
    N commits need). A pending clean (a killed run's plan) is executed first, as Hudi's cleaner does; each
    clean completed is reported."""
    from ..table import HudiTable
    from ..table.services.clean import POLICY_OPTIONS, clean_all, cleaner_policy
    flag = {"KEEP_LATEST_COMMITS": "--retain-commits", "KEEP_LATEST_FILE_VERSIONS": "--retain-versions",
            "KEEP_LATEST_BY_HOURS": "--retain-hours"}
    given = {k: v for k, v in (("KEEP_LATEST_COMMITS", retain_commits), ("KEEP_LATEST_FILE_VERSIONS", retain_versions),
                               ("KEEP_LATEST_BY_HOURS", retain_hours)) if v is not None}
    if len(given) > 1 or (policy and given and policy.upper() not in given):
        _fail(f"{', '.join(flag[k] for k in given)} does not go with --policy {policy.upper() if policy else ''}".strip()
              + " (give the retain option of the one policy)")
    opts = hudi_options(extra)
    # the flags are Hudi's options given another way: resolved with -o as the write's flags are
    labels = {POLICY_OPTIONS[k]: f for k, f in flag.items()}
    if policy or given:
        labels["hoodie.cleaner.policy"] = "--policy" if policy else f"{flag[next(iter(given))]} (its policy)"
    try:
        chosen = cleaner_policy(path, opts, policy.upper() if policy else (next(iter(given)) if given else None),
                                next(iter(given.values())) if given else None, labels)
        timeline = HudiTable(path).timeline
        pending = {i.requested_time for i in timeline.pending() if i.action == "clean"}
        done = clean_all(path, options=opts, policy=chosen)
    except HudiLogError as e:
        raise_error(e)
    cleans = [{"clean": c, "files_deleted": _files_deleted(path, c), "pending_plan": c in pending} for c in done]
    last = cleans[-1] if cleans else {"clean": None, "files_deleted": 0}
    click.echo(json.dumps({"clean": last["clean"], "files_deleted": last["files_deleted"], "policy": chosen.policy,
                           "retained": chosen.retained, "cleans": cleans})
               if as_json else "\n".join(f"clean {c['clean']}: {c['files_deleted']} file(s) deleted"
                                         + (" (the pending plan of a killed run)" if c["pending_plan"] else "")
                                         for c in cleans) or "nothing to clean")


def _files_deleted(path, instant: str | None) -> int:
    """``totalFilesDeleted`` of a completed clean or rollback instant's metadata (0 when there is none)."""
    if instant is None:
        return 0
    from ..table import HudiTable
    t = HudiTable(path)
    inst = t.timeline.instant(instant)
    try:
        return int((t.timeline.commit_metadata(inst) if inst else {}).get("totalFilesDeleted") or 0)
    except HudiLogError:
        return 0


@click.command("rollback")
@click.argument("path", type=StoragePath(file_okay=False))
@click.argument("instant")
@_OPTION
def rollback_cmd(path, instant, extra):
    """Roll back the failed (pending) write INSTANT of the table at PATH. An instant whose writer is alive
    (its heartbeat is fresh) is refused."""
    from ..table.read.instants import parse_instant
    from ..table.services.rollback import rollback

    try:
        done = rollback(path, parse_instant(instant, "INSTANT", path), options=hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    click.echo(f"rolled back {instant}: rollback {done.requested_time} ({done.file_name}), "
               f"{_files_deleted(path, done.requested_time)} file(s) deleted")
