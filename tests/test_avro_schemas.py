"""Avro schemas as Hudi's Spark writer derives them (issue 15, item 3): the corpus's Java-written schemas
re-derived byte for byte from the Arrow schema of the same data, and the same JSON in every place hudi-log
writes a schema (commit metadata, hoodie.table.create.schema, the log SCHEMA header, parquet.avro.schema)."""

from __future__ import annotations

import decimal
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_log import open_log, read_table, write_table
from hudi_log.format.content.avro_arrow import (
    arrow_to_avro_schema, fix_null_ordering, min_bytes_for_precision, spark_create_schema,
)
from hudi_log.format.content.meta_fields import schema_json, strip_meta_fields
from hudi_log.format.grammar import BlockType
from hudi_log.table import HudiTable
from hudi_log.table.properties import read_properties
from hudi_log.table.schema import current_schema, evolve
from hudi_log.table.timeline.timeline import Timeline


def java_schemas(root) -> tuple[str, str]:
    """(latest commit's extraMetadata.schema, hoodie.table.create.schema) of a Java-written table."""
    props = read_properties(root)
    tl = Timeline(root, props)
    commit = [s for s in ((tl.commit_metadata(i).get("extraMetadata") or {}).get("schema")
                          for i in tl.completed_commits()) if s][-1]
    return commit, props.get("hoodie.table.create.schema")


def test_every_corpus_schema_is_rederived_byte_for_byte(corpus_tables):
    """Decimals as fixed, dates, timestamps, bytes, byte/short as int, arrays and maps of structs, nested
    structs: the JSON Java wrote is what hudi-log derives from the Arrow schema of the table's rows."""
    checked = 0
    for name, root in sorted(corpus_tables.items()):
        if "empty" in name:
            continue
        commit, create = java_schemas(root)
        java = json.loads(commit)
        ours = arrow_to_avro_schema(read_table(root).schema, java["name"][: -len("_record")])
        assert schema_json(ours) == commit, name
        # Spark SQL's CREATE TABLE records the same types null last, without defaults (one corpus table
        # changed a column's type after it was created)
        if "epochmillis" not in name:
            assert json.dumps(spark_create_schema(ours), separators=(",", ":")) == create, name
        assert fix_null_ordering(json.loads(create)) == json.loads(commit) or "epochmillis" in name
        checked += 1
    assert checked >= 13


@pytest.mark.parametrize("precision,size", [(1, 1), (2, 1), (3, 2), (9, 4), (10, 5), (15, 7), (18, 8), (19, 9),
                                            (28, 12), (38, 16)])
def test_decimal_fixed_size_is_sparks(precision, size):
    assert min_bytes_for_precision(precision) == size


def test_nullability_and_nesting_as_spark_gives_them():
    s = pa.schema([
        pa.field("id", pa.int32(), nullable=False),
        pa.field("tags", pa.list_(pa.field("element", pa.string(), nullable=False))),
        pa.field("m", pa.map_(pa.string(), pa.field("value", pa.decimal128(5, 2), nullable=True))),
        pa.field("st", pa.struct([pa.field("d", pa.decimal128(20, 3)), pa.field("q", pa.int64(), nullable=False)])),
        pa.field("ntz", pa.timestamp("us")), pa.field("b", pa.int8()),
    ])
    got = arrow_to_avro_schema(s, "t")
    f = {x["name"]: x for x in got["fields"]}
    assert f["id"] == {"name": "id", "type": "int"}  # no union, no default
    assert f["tags"]["type"] == ["null", {"type": "array", "items": "string"}] and f["tags"]["default"] is None
    assert f["m"]["type"][1]["values"] == ["null", {"type": "fixed", "name": "fixed", "namespace": "hoodie.t.t_record.m",
                                                    "size": 3, "logicalType": "decimal", "precision": 5, "scale": 2}]
    st = f["st"]["type"][1]
    assert (st["name"], st["namespace"]) == ("st", "hoodie.t.t_record")
    assert st["fields"][0]["type"][1]["namespace"] == "hoodie.t.t_record.st.d" and st["fields"][0]["type"][1]["size"] == 9
    assert st["fields"][1] == {"name": "q", "type": "long"}
    assert f["ntz"]["type"][1] == {"type": "long", "logicalType": "local-timestamp-micros"}
    assert f["b"]["type"] == ["null", "int"]


def rows(ids, ts) -> pa.Table:
    return pa.table({
        "id": pa.array([f"k{i}" for i in ids]), "ts": pa.array([ts] * len(ids), pa.int64()),
        "amount": pa.array([decimal.Decimal(f"{i}.50") for i in ids], pa.decimal128(10, 2)),
        "where": pa.array([{"city": f"c{i}", "n": [i, i + 1]} for i in ids],
                          pa.struct([("city", pa.string()), ("n", pa.list_(pa.int32()))])),
    })


def opts(kind: str) -> dict:
    return {"hoodie.table.name": "shop", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": kind}


@pytest.mark.parametrize("kind", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_every_place_hudi_log_writes_a_schema_holds_the_derived_one(tmp_path, kind):
    path = tmp_path / "t"
    write_table(path, rows(range(4), 1), "insert", opts(kind))
    write_table(path, rows(range(2), 2), "upsert", opts(kind))
    expected = schema_json(arrow_to_avro_schema(rows([0], 0).schema, "shop"))
    table = HudiTable(path)
    assert schema_json(current_schema(table.properties, table.timeline)) == expected
    for inst in table.timeline.completed_commits():
        assert table.timeline.commit_metadata(inst)["extraMetadata"]["schema"] == expected
    create = table.properties.get("hoodie.table.create.schema")
    assert create == json.dumps(spark_create_schema(json.loads(expected)), separators=(",", ":"))
    assert '["string","null"]' in create and '"default"' not in create
    footers = [pq.read_metadata(p).metadata[b"parquet.avro.schema"].decode() for p in path.rglob("*.parquet")]
    headers = [b.header["SCHEMA"] for log in path.rglob(".*.log.*") for b in open_log(log)
               if b.block_type == BlockType.avro_data_block]
    assert footers and (headers or kind == "COPY_ON_WRITE")
    for s in footers + headers:
        assert schema_json(strip_meta_fields(json.loads(s))) == expected
    got = read_table(path).sort_by("id")
    assert got.column("amount").to_pylist()[:2] == [decimal.Decimal("0.50"), decimal.Decimal("1.50")]


def test_a_table_keeps_its_own_spelling_of_an_unchanged_column(tmp_path):
    """A decimal an older hudi-log wrote as bytes stays bytes when the table evolves (its log blocks and
    base files hold bytes), while a new column takes Spark's spelling."""
    old = {"type": "record", "name": "t_record", "namespace": "hoodie.t", "fields": [
        {"name": "id", "type": ["null", "string"], "default": None},
        {"name": "amount", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}],
         "default": None}]}
    batch = arrow_to_avro_schema(pa.schema([("id", pa.string()), ("amount", pa.decimal128(10, 2)),
                                            ("price", pa.decimal128(10, 2))]), "t")
    out = evolve(tmp_path, old, batch)
    assert out["fields"][1] == old["fields"][1]
    assert out["fields"][2]["type"][1]["type"] == "fixed"
