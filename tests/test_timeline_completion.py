"""Layout-1 timelines have no completion time in file names: Hudi takes the completed instant file's
modification time, in the timeline timezone (``hoodie.table.timeline.timezone``, default local)."""

from __future__ import annotations

import datetime
import os
import shutil

from hudi_log.table import HudiTable, read_table


def test_layout1_completion_time_is_the_file_mtime(corpus_tables, tmp_path):
    root = tmp_path / "t"
    shutil.copytree(corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"], root)
    table = HudiTable(root)
    first = table.timeline.completed_commits()[0]
    when = datetime.datetime(2025, 3, 31, 3, 6, 44, tzinfo=datetime.timezone.utc)
    ns = int(when.timestamp()) * 10**9 + 123_000_000
    os.utime(first.path, ns=(ns, ns))
    props = root / ".hoodie" / "hoodie.properties"
    props.write_text(props.read_text() + "hoodie.table.timeline.timezone=UTC\n")
    again = HudiTable(root).timeline.completed_commits()[0]
    assert again.requested_time == first.requested_time
    assert again.completion_time == "20250331030644123"
    # reads of a layout-1 table do not depend on it
    assert read_table(root).equals(read_table(corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]))
