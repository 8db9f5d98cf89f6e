"""How a Spark read's file slices become input partitions (hudi_log.spark.source.partition_count and
hudi_log.spark.blocks.spread): whole waves over the cores, about equal bytes each, slices kept in order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
from hudi_log.spark.blocks import spread  # noqa: E402
from hudi_log.spark.source import MAX_PARTITION_BYTES, MIN_PARTITION_BYTES, partition_count  # noqa: E402

MB = 1 << 20


def test_whole_waves_of_at_most_the_bound():
    # the 10M-row bench tables: 262 slices of 2.0 GB and 3.7 GB on 2 cores; one wave up to 2 x 1 GB
    assert partition_count(2075 * MB, 262, 2) == 4
    assert partition_count(3728 * MB, 262, 2) == 4
    assert partition_count(1900 * MB, 262, 2) == 2
    # a 1-billion-row table of 200 GB on 400 cores: one wave
    assert partition_count(200 << 30, 10_000, 400) == 400
    assert partition_count(2 * 400 * MAX_PARTITION_BYTES + 1, 10_000, 400) == 1200


def test_small_tables_make_few_partitions():
    assert partition_count(3 * MB, 5, 8) == 1  # under MIN_PARTITION_BYTES: one task
    assert partition_count(10 * MIN_PARTITION_BYTES, 3, 8) == 3  # never more than the slices
    assert partition_count(0, 0, 4) == 1


@given(sizes=st.lists(st.integers(0, 50), max_size=60), k=st.integers(1, 12))
def test_spread_keeps_every_slice_in_order_in_about_equal_groups(sizes, k):
    items = list(enumerate(sizes))
    groups = spread(items, k)
    assert [i for g in groups for i in g] == list(range(len(sizes)))
    assert len(groups) <= k and all(groups)
    total = sum(sizes)
    if total and len(groups) > 1:
        share = total / k
        assert all(sum(sizes[i] for i in g) <= share + max(sizes) for g in groups)
