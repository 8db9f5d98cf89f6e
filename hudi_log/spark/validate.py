"""`hudi-log validate --spark GLOB...`: the lake-wide block check as one Spark job.

Runs the ``hudi_log_blocks`` source over the globs, aggregates on the executors, and brings back to the
driver only the counts and the rows that need reporting (damaged spans, blocks Hudi would skip,
unreadable files). Exit codes as the plain ``validate``: 0 all intact, 1 some block damaged, 2 some
file unreadable.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from ..format.reader import RULES


@dataclass
class LakeReport:
    files: int = 0
    blocks: int = 0
    intact: int = 0
    damaged_files: int = 0
    #: {"path", "offset", "length", "rule", "detail"} per damaged span
    damage: list[dict] = field(default_factory=list)
    #: {"path", "offset", "length"} per intact block that Hudi's reader would report as corrupt
    skipped_by_hudi: list[dict] = field(default_factory=list)
    #: {"path", "error"} per file that cannot be read
    unreadable: list[dict] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 2 if self.unreadable else 1 if self.damage else 0

    def to_json(self) -> dict:
        return {"ok": self.exit_code == 0, **asdict(self)}


def validate_lake(spark, patterns: list[str]) -> LakeReport:
    from pyspark.sql import functions as F

    df = spark.read.format("hudi_log_blocks").load(list(patterns)).cache()
    try:
        agg = df.agg(
            F.countDistinct("path").alias("files"),
            F.count(F.when(F.col("error").isNull(), 1)).alias("blocks"),
            F.count(F.when(F.col("error").isNull() & ~F.col("corrupt"), 1)).alias("intact"),
            F.countDistinct(F.when(F.col("corrupt"), F.col("path"))).alias("damaged_files"),
        ).first()
        report = LakeReport(files=agg["files"], blocks=agg["blocks"], intact=agg["intact"],
                            damaged_files=agg["damaged_files"])
        flagged = (df.where(F.col("corrupt") | F.col("skipped_by_hudi") | F.col("error").isNotNull())
                   .select("path", "offset", "length", "rule", "detail", "corrupt", "skipped_by_hudi", "error")
                   .orderBy("path", "offset").collect())
    finally:
        df.unpersist()
    for r in flagged:
        if r["error"] is not None:
            report.unreadable.append({"path": r["path"], "error": r["error"]})
        elif r["corrupt"]:
            report.damage.append({"path": r["path"], "offset": r["offset"], "length": r["length"],
                                  "rule": r["rule"], "rule_text": RULES.get(r["rule"], ""), "detail": r["detail"]})
        else:
            report.skipped_by_hudi.append({"path": r["path"], "offset": r["offset"], "length": r["length"]})
    return report


def format_report(report: LakeReport) -> list[str]:
    lines = [f"{u['path']}: UNREADABLE: {u['error']}" for u in report.unreadable]
    for d in report.damage:
        lines.append(f"{d['path']}: offset {d['offset']}, {d['length']} bytes: {d['rule']}: {d['detail']}")
    for s in report.skipped_by_hudi:
        lines.append(f"{s['path']}: block at offset {s['offset']} is intact, but Apache Hudi reads it as corrupt "
                     "(garbage follows it)")
    state = "OK" if report.exit_code == 0 else "DAMAGED" if report.exit_code == 1 else "UNREADABLE FILES"
    lines.append(f"{state}: {report.files} file(s), {report.blocks} block(s), {report.intact} intact, "
                 f"{len(report.damage)} damaged span(s) in {report.damaged_files} file(s), "
                 f"{len(report.unreadable)} unreadable file(s)")
    return lines


def print_report(report: LakeReport, as_json: bool, echo=print) -> None:
    if as_json:
        echo(json.dumps(report.to_json(), indent=2))
        return
    for line in format_report(report):
        echo(line)
