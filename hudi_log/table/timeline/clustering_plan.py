"""Clustering plans on the timeline: the ``HoodieRequestedReplaceMetadata`` a pending clustering's requested
file holds, and which file groups pending clusterings have taken.

* File names: table version 6 (timeline layout 1) writes ``{ts}.replacecommit.requested`` / ``.inflight``;
  version 8 (layout 2, Java 1.x's ``InstantGeneratorV2``) writes ``{ts}.clustering.requested`` /
  ``.inflight``. Both complete as a ``replacecommit``.
* The requested file is an Avro object container of ``HoodieRequestedReplaceMetadata``
  (``operationType`` CLUSTER, ``clusteringPlan`` a ``HoodieClusteringPlan``), in both layouts, as Java's
  ``TimelineMetadataUtils.serializeRequestedReplaceMetadata`` writes it. The schemas below follow the
  ``.avsc`` files of ``hudi-common/src/main/avro`` (field names, order, defaults), every string a Java
  ``String``.
* ``HoodieSliceInfo`` holds full paths (Java's ``ClusteringPlanStrategy.getFileSliceInfo``: the base file's
  path, or "" without one, the log files' paths); readers here take the file names and resolve them in the
  table, so a moved table still runs its plans.
* A file group is under pending clustering while a requested or inflight clustering's plan lists it
  (Java's ``ClusteringUtils.getAllFileGroupsInPendingClusteringPlans``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ...paths import as_path
from ..properties import TableError
from . import commit_metadata as cm
from .pending import contained_slice, is_pending_clustering
from .timeline import CLUSTERING, REPLACE_COMMIT, Instant, Timeline

_NS = "org.apache.hudi.avro.model"
_JS = {"type": "string", "avro.java.string": "String"}
_S = ["null", _JS]
_STR_MAP = {"type": "map", "values": _JS, "avro.java.string": "String"}
CLUSTER = "CLUSTER"  # WriteOperationType.CLUSTER
PLAN_VERSION = 1  # ClusteringPlanStrategy.CLUSTERING_PLAN_VERSION_1

SLICE_INFO_SCHEMA = {"type": "record", "name": "HoodieSliceInfo", "namespace": _NS, "fields": [
    {"name": "dataFilePath", "type": _S, "default": None},
    {"name": "deltaFilePaths", "type": ["null", {"type": "array", "items": _JS}], "default": None},
    {"name": "fileId", "type": _S},
    {"name": "partitionPath", "type": _S, "default": None},
    {"name": "bootstrapFilePath", "type": _S, "default": None},
    {"name": "version", "type": ["int", "null"], "default": 1}]}
CLUSTERING_GROUP_SCHEMA = {"type": "record", "name": "HoodieClusteringGroup", "namespace": _NS, "fields": [
    {"name": "slices", "type": ["null", {"type": "array", "items": SLICE_INFO_SCHEMA}], "default": None},
    {"name": "metrics", "type": ["null", {"type": "map", "values": "double", "avro.java.string": "String"}],
     "default": None},
    {"name": "numOutputFileGroups", "type": ["int", "null"], "default": 1},
    {"name": "extraMetadata", "type": ["null", _STR_MAP], "default": None},
    {"name": "version", "type": ["int", "null"], "default": 1}]}
CLUSTERING_STRATEGY_SCHEMA = {"type": "record", "name": "HoodieClusteringStrategy", "namespace": _NS, "fields": [
    {"name": "strategyClassName", "type": _S, "default": None},
    {"name": "strategyParams", "type": ["null", _STR_MAP], "default": None},
    {"name": "version", "type": ["int", "null"], "default": 1}]}
CLUSTERING_PLAN_SCHEMA = {"type": "record", "name": "HoodieClusteringPlan", "namespace": _NS, "fields": [
    {"name": "inputGroups", "type": ["null", {"type": "array", "items": CLUSTERING_GROUP_SCHEMA}], "default": None},
    {"name": "strategy", "type": [CLUSTERING_STRATEGY_SCHEMA, "null"], "default": None},
    {"name": "extraMetadata", "type": ["null", _STR_MAP], "default": None},
    {"name": "version", "type": ["int", "null"], "default": 1},
    {"name": "preserveHoodieMetadata", "type": ["null", "boolean"], "default": None},
    {"name": "missingSchedulePartitions", "type": ["null", {"type": "array", "items": _JS}], "default": None}]}
REQUESTED_REPLACE_SCHEMA = {"type": "record", "name": "HoodieRequestedReplaceMetadata", "namespace": _NS, "fields": [
    {"name": "operationType", "type": _S, "default": None},
    {"name": "clusteringPlan", "type": [CLUSTERING_PLAN_SCHEMA, "null"], "default": None},
    {"name": "extraMetadata", "type": ["null", _STR_MAP], "default": None},
    {"name": "version", "type": ["int", "null"], "default": 1}]}
#: Java's default execution strategy for Spark (HoodieClusteringConfig.EXECUTION_STRATEGY_CLASS_NAME)
EXECUTION_STRATEGY = "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
SORT_COLUMNS = "hoodie.clustering.plan.strategy.sort.columns"


class ClusteringPlanError(TableError):
    """A clustering plan cannot be read (an unreadable or corrupt requested file)."""


@dataclass(frozen=True)
class SliceInfo:
    """One file slice a clustering group rewrites (``HoodieSliceInfo``); file names, not paths."""
    partition: str
    file_id: str
    base_file: str | None
    log_files: tuple[str, ...] = ()

    def to_record(self, table_path: Path) -> dict:
        folder = table_path / self.partition if self.partition else table_path
        return {"dataFilePath": str(folder / self.base_file) if self.base_file else "",
                "deltaFilePaths": [str(folder / n) for n in self.log_files], "fileId": self.file_id,
                "partitionPath": self.partition, "bootstrapFilePath": "", "version": 1}

    @classmethod
    def from_record(cls, r: Mapping) -> "SliceInfo":
        base = r.get("dataFilePath")
        return cls(r.get("partitionPath") or "", r.get("fileId") or "", Path(base).name if base else None,
                   tuple(Path(p).name for p in r.get("deltaFilePaths") or ()))


@dataclass(frozen=True)
class ClusteringGroup:
    """Slices rewritten together into ``num_output_file_groups`` new file groups (``HoodieClusteringGroup``)."""
    slices: tuple[SliceInfo, ...]
    num_output_file_groups: int = 1
    metrics: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ClusteringPlan:
    """A ``HoodieClusteringPlan`` of one clustering instant."""
    instant: str
    groups: tuple[ClusteringGroup, ...]
    strategy_params: Mapping[str, str] = field(default_factory=dict)

    def folders(self, table_path, source) -> list:
        """Each slice's partition folder, the plan's paths and names checked (:func:`contained_slice`)."""
        return [contained_slice(table_path, source, f"inputGroups[{g}].slices[{n}]", s.partition, s.file_id,
                                s.base_file, s.log_files)
                for g, group in enumerate(self.groups) for n, s in enumerate(group.slices)]

    def file_groups(self) -> set[tuple[str, str]]:
        return {(s.partition, s.file_id) for g in self.groups for s in g.slices}

    @property
    def sort_columns(self) -> list[str]:
        return [c.strip() for c in (self.strategy_params.get(SORT_COLUMNS) or "").split(",") if c.strip()]

    def to_bytes(self, table_path) -> bytes:
        """The requested file's content: ``HoodieRequestedReplaceMetadata`` holding this plan."""
        plan = {"inputGroups": [{"slices": [s.to_record(as_path(table_path)) for s in g.slices],
                                 "metrics": dict(g.metrics), "numOutputFileGroups": g.num_output_file_groups,
                                 "extraMetadata": None, "version": 1} for g in self.groups],
                "strategy": {"strategyClassName": EXECUTION_STRATEGY, "strategyParams": dict(self.strategy_params),
                             "version": 1},
                "extraMetadata": {}, "version": PLAN_VERSION, "preserveHoodieMetadata": True,
                "missingSchedulePartitions": None}
        return cm.avro_container(REQUESTED_REPLACE_SCHEMA, {"operationType": CLUSTER, "clusteringPlan": plan,
                                                            "extraMetadata": {}, "version": 1})

    @classmethod
    def from_bytes(cls, instant: str, data: bytes, path=None) -> "ClusteringPlan":
        rec = cm.first_avro_record(data, ClusteringPlanError, path or instant, "clustering plan") or {}
        if rec.get("operationType") != CLUSTER:
            raise ClusteringPlanError(path or instant, "the requested file holds no clustering plan")
        plan = rec.get("clusteringPlan") or {}  # none: nothing planned (Java's getClusteringPlan is empty)
        groups = tuple(ClusteringGroup(tuple(SliceInfo.from_record(s) for s in g.get("slices") or ()),
                                       int(g.get("numOutputFileGroups") or 1), dict(g.get("metrics") or {}))
                       for g in plan.get("inputGroups") or ())
        return cls(instant, groups, dict((plan.get("strategy") or {}).get("strategyParams") or {}))


def pending_action(layout: int) -> str:
    """The action of a pending clustering: ``clustering`` in timeline layout 2, ``replacecommit`` before."""
    return CLUSTERING if layout >= 2 else REPLACE_COMMIT


def requested_file(timeline: Timeline, inst: Instant) -> Path:
    return timeline.folder / f"{inst.requested_time}.{inst.action}.requested"


def pending_clusterings(timeline: Timeline) -> list[tuple[Instant, ClusteringPlan]]:
    """Every requested or inflight clustering with its plan, oldest first; an unreadable plan is refused
    (a file group it may hold cannot be written safely)."""
    out = []
    for inst in timeline.pending():
        if not is_pending_clustering(timeline, inst):
            continue
        req = requested_file(timeline, inst)
        try:
            data = req.read_bytes()
        except OSError as e:
            raise ClusteringPlanError(req, f"cannot read the clustering plan: {e.strerror or e}") from e
        plan = ClusteringPlan.from_bytes(inst.requested_time, data, req)
        plan.folders(timeline.table_path, req)  # a planted plan is refused before any service acts on it
        out.append((inst, plan))
    return out


def file_groups_in_pending_clustering(timeline: Timeline) -> dict[tuple[str, str], str]:
    """{(partition, file id): clustering instant} of every file group a pending clustering has taken."""
    return {fg: inst.requested_time for inst, plan in pending_clusterings(timeline) for fg in plan.file_groups()}
