"""TimelineWriter and create_table: instant times, the instant-file protocol and hoodie.properties,
checked against the tables Hudi itself wrote (../shared/corpus) and against our timeline reader."""

from __future__ import annotations

import pytest

from hudi_log.table import read_properties
from hudi_log.table.write.create import (
    TableMismatchError, TableOptionsError, create_table, partition_depth, write_partition_metadata,
)
from hudi_log.table.properties import parse_java_properties
from hudi_log.table.timeline.timeline import Timeline, read_instant_metadata
from hudi_log.table.timeline.writer import TimelineWriter, instant_after

SCHEMA = {"type": "record", "name": "t_record", "namespace": "hoodie.t",
          "fields": [{"name": "id", "type": ["null", "long"], "default": None}]}


def make(tmp_path, version=6, table_type="MERGE_ON_READ", **extra):
    o = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": table_type,
         "hoodie.write.table.version": str(version), **extra}
    path = tmp_path / f"t{version}"
    return path, create_table(path, o, schema=SCHEMA)


def test_instant_times_are_17_digits_and_strictly_increasing(tmp_path):
    path, props = make(tmp_path)
    tw = TimelineWriter(path, props)
    times = [tw.new_instant_time() for _ in range(200)]
    assert all(len(t) == 17 and t.isdigit() for t in times)
    assert times == sorted(set(times))
    # an instant from the future on the timeline: the next time comes after it
    future = "29990101000000000"
    tw.requested("deltacommit", future)
    assert TimelineWriter(path, props).new_instant_time() == "29990101000000001"
    assert instant_after("20241231235959999") == "20250101000000000"


@pytest.mark.parametrize("version", [6, 8])
def test_protocol_files_and_metadata_round_trip(tmp_path, version):
    path, props = make(tmp_path, version)
    tw = TimelineWriter(path, props)
    t = tw.new_instant_time()
    tw.requested("deltacommit", t)
    tw.inflight("deltacommit", t)
    tl = Timeline(path, props)
    assert [(i.action, i.state) for i in tl.instants] == [("deltacommit", "INFLIGHT")]
    md = {"partitionToWriteStats": {"p": [{"fileId": "f-0", "path": "p/x.parquet", "numWrites": 3}]},
          "compacted": False, "extraMetadata": {"schema": "{}"}, "operationType": "UPSERT"}
    done = tw.complete("deltacommit", t, md)
    assert done.is_completed and done.path.exists()
    raw = done.path.read_bytes()
    if version >= 8:
        assert raw[:4] == b"Obj\x01" and done.completion_time > t  # Avro, with a completion time
        assert done.file_name == f"{t}_{done.completion_time}.deltacommit"
    else:
        assert raw.lstrip()[:1] == b"{" and done.file_name == f"{t}.deltacommit"
    back = read_instant_metadata(done.path)
    assert back["partitionToWriteStats"]["p"][0]["numWrites"] == 3 and back["operationType"] == "UPSERT"
    assert [(i.action, i.state) for i in Timeline(path, props).instants] == [("deltacommit", "COMPLETED")]
    # no temporary file is left behind; completing twice is refused
    assert not [p for p in done.path.parent.iterdir() if p.name.endswith(".tmp")]
    with pytest.raises(Exception, match="already completed"):
        tw.complete("deltacommit", t, md)


@pytest.mark.parametrize("version", [6, 8])
def test_compaction_completes_as_commit_and_remove_pending(tmp_path, version):
    path, props = make(tmp_path, version)
    tw = TimelineWriter(path, props)
    c = tw.new_instant_time()
    tw.requested("compaction", c, b"plan")
    tw.inflight("compaction", c)
    done = tw.complete("compaction", c, {"partitionToWriteStats": {}, "compacted": True, "extraMetadata": {},
                                         "operationType": "COMPACT"})
    assert done.action == "commit"
    assert [(i.action, i.state) for i in Timeline(path, props).instants] == [("commit", "COMPLETED")]
    w = tw.new_instant_time()
    tw.requested("commit", w)
    p = tw.inflight("commit", w)
    assert p.name == f"{w}.inflight"  # a commit's inflight has no action in its name, as in Hudi
    tw.remove_pending("commit", w)
    assert [i.requested_time for i in Timeline(path, props).instants] == [c]


# ---- create_table ------------------------------------------------------------------------------
@pytest.mark.parametrize("version", [6, 8])
def test_created_properties_match_what_hudi_writes(tmp_path, corpus_tables, version):
    """Same keys as the table Hudi created with the same version and type (metadata-table and
    index-definition keys aside: we write no metadata table)."""
    name = {6: "quickstart_trips_table_mor_avro_v6_trips_8i1u", 8: "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"}
    hudi_props = read_properties(corpus_tables[name[version]])
    path, ours = make(tmp_path, version, **{"hoodie.datasource.write.partitionpath.field": "city",
                              "hoodie.datasource.write.hive_style_partitioning": "true"})
    skip = {"hoodie.table.metadata.partitions", "hoodie.table.metadata.partitions.inflight",
            "hoodie.table.index.defs.path"}
    # and one key more: the table's timeline zone, UTC, so that Java writers make instants in our zone
    assert set(ours) == (set(hudi_props) - skip) | {"hoodie.table.timeline.timezone"}
    assert ours.get("hoodie.table.timeline.timezone") == "UTC"
    for k in ("hoodie.table.type", "hoodie.table.version", "hoodie.timeline.layout.version",
              "hoodie.datasource.write.hive_style_partitioning", "hoodie.archivelog.folder",
              "hoodie.table.keygenerator.class", "hoodie.table.keygenerator.type", "hoodie.record.merge.mode",
              "hoodie.compaction.payload.class", "hoodie.timeline.path", "hoodie.timeline.history.path"):
        assert ours.get(k) == hudi_props.get(k), k
    assert ours.checksum_ok() is True
    # the folders Hudi creates
    meta = path / ".hoodie"
    for d in (".aux/.bootstrap/.partitions", ".aux/.bootstrap/.fileids", ".schema", ".temp"):
        assert (meta / d).is_dir()
    assert (meta / "timeline" / "history").is_dir() if version >= 8 else (meta / "archived").is_dir()
    # values with ':' and '=' are escaped as java.util.Properties writes them, and read back
    text = (meta / "hoodie.properties").read_text()
    assert '{"type"\\:"record"' in text
    assert parse_java_properties(text)["hoodie.table.create.schema"].startswith('{"type":"record"')


def test_create_refuses_bad_options_and_an_existing_table(tmp_path):
    with pytest.raises(TableOptionsError, match="hoodie.table.name"):
        create_table(tmp_path / "a", {"hoodie.datasource.write.recordkey.field": "id"})
    with pytest.raises(TableOptionsError, match="version 7"):
        create_table(tmp_path / "a", {"hoodie.table.name": "a", "hoodie.datasource.write.recordkey.field": "id",
                                      "hoodie.write.table.version": "7"})
    path, _ = make(tmp_path)
    with pytest.raises(TableMismatchError, match="already exists"):
        make(tmp_path)
    assert read_properties(path).name == "t"


def test_partition_metadata(tmp_path):
    path, _ = make(tmp_path)
    f = write_partition_metadata(path, "a=1/b=2", "20250101000000000")
    props = parse_java_properties(f.read_text())
    assert props == {"commitTime": "20250101000000000", "partitionDepth": "2"}
    write_partition_metadata(path, "a=1/b=2", "20260101000000000")  # the first writer's stays
    assert parse_java_properties(f.read_text())["commitTime"] == "20250101000000000"
    assert partition_depth("") == 0
    assert parse_java_properties(write_partition_metadata(path, "", "1").read_text())["partitionDepth"] == "0"


# ---- instant times (issue 15, item 1) ------------------------------------------------------------------
def test_instant_times_follow_the_tables_timeline_zone(tmp_path, monkeypatch):
    import datetime
    import time

    from hudi_log.table.properties import write_properties
    from hudi_log.table.write.create import TableOptionsError

    path, props = make(tmp_path / "utc")
    assert props.get("hoodie.table.timeline.timezone") == "UTC"
    with pytest.raises(TableOptionsError, match="timeline.timezone"):
        make(tmp_path / "bad", **{"hoodie.table.timeline.timezone": "Mars"})
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # 9 h ahead of UTC, no daylight saving
    time.tzset()
    try:
        utc_now = datetime.datetime.now(datetime.timezone.utc)
        assert TimelineWriter(path, props).new_instant_time()[:10] == utc_now.strftime("%Y%m%d%H")
        # a table without the key is LOCAL to Java (its default): instants in the process's own zone
        p = props.to_dict()
        del p["hoodie.table.timeline.timezone"]
        local = TimelineWriter(path, write_properties(path, p)).new_instant_time()
        assert local[:10] == (utc_now + datetime.timedelta(hours=9)).strftime("%Y%m%d%H")
        lpath, lprops = make(tmp_path / "local", **{"hoodie.table.timeline.timezone": "local"})
        assert lprops.get("hoodie.table.timeline.timezone") == "LOCAL"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


@pytest.mark.parametrize("version", [6, 8])
def test_a_new_instant_is_later_than_every_instant_even_with_the_clock_behind(tmp_path, version):
    path, props = make(tmp_path, version)
    tw = TimelineWriter(path, props)
    future = "29991231235959998"
    tw.requested("deltacommit", future)  # a writer whose clock runs far ahead (or in another zone)
    assert tw.new_instant_time() == "29991231235959999"  # the next millisecond, never an older time
    if version >= 8:  # the archived instants of the LSM history count too
        history = path / ".hoodie" / "timeline" / "history"
        (history / "30000101000000000_30000102000000000_0.parquet").write_bytes(b"")
        assert TimelineWriter(path, props).new_instant_time() == "30000102000000001"
