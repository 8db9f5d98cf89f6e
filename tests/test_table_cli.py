import json

from click.testing import CliRunner

from hudi_log.cli import main as cli


def test_table_json(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
    r = CliRunner().invoke(cli, ["table", str(root), "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["properties"]["hoodie.table.version"] == "8" and d["checksum_ok"] is True
    assert any(i["action"] == "deltacommit" and i["completion_time"] for i in d["timeline"])
    assert set(d["partitions"]) == {"city=chennai", "city=san_francisco", "city=sao_paulo"}
    r = CliRunner().invoke(cli, ["table", str(root)])
    assert r.exit_code == 0 and "timeline" in r.output


def test_read_jsonl_and_parquet(corpus_tables, tmp_path):
    root = corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]
    r = CliRunner().invoke(cli, ["read", str(root), "--format", "jsonl", "--columns", "rider,fare"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in r.output.splitlines()]
    assert {x["rider"]: x["fare"] for x in rows}["rider-D"] == 25.0
    out = tmp_path / "o.parquet"
    r = CliRunner().invoke(cli, ["read", str(root), "--format", "parquet", "-o", str(out), "--as-of", "20250331030642808"])
    assert r.exit_code == 0, r.output
    import pyarrow.parquet as pq
    assert {x["rider"]: x["fare"] for x in pq.read_table(out).to_pylist()}["rider-D"] == 33.9
    r = CliRunner().invoke(cli, ["read", str(root)])
    # piped (not a terminal): a header line and a tab-separated line per row, nothing cut
    lines = r.stdout.splitlines()
    assert r.exit_code == 0 and len(lines) == 9 and lines[0].split("\t")[:3] == [
        "_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key"]


def test_read_not_a_table(tmp_path):
    r = CliRunner().invoke(cli, ["read", str(tmp_path)])
    assert r.exit_code == 2 and "not a Hudi table" in r.stderr and len(r.stderr.splitlines()) == 1


def test_read_on_a_terminal_gathers_slices_into_one_table(corpus_tables, monkeypatch):
    """On a terminal `read` prints rich tables of up to 1000 rows, gathering the rows of many small
    file slices rather than printing one table per slice; the count goes last."""
    from hudi_log.cli import output, read_output

    for module in (output, read_output):
        monkeypatch.setattr(module, "stdout_is_terminal", lambda: True)
    root = corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]
    r = CliRunner(env={"COLUMNS": "400"}).invoke(cli, ["read", str(root), "--columns", "rider,fare"])
    assert r.exit_code == 0, r.output
    assert r.stdout.count("rows 1-8") == 1 and "rows 1-1 " not in r.stdout, r.stdout
    assert r.stdout.strip().splitlines()[-1] == "8 row(s)"
    r = CliRunner(env={"COLUMNS": "400"}).invoke(cli, ["read", str(root), "--limit", "3"])
    assert r.exit_code == 0 and "rows 1-3" in r.stdout and r.stdout.strip().splitlines()[-1] == "3 row(s)"


def test_read_columns_each_once(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]
    r = CliRunner().invoke(cli, ["read", str(root), "--columns", " rider, rider ,fare,"])
    assert r.exit_code == 0 and r.stdout.splitlines()[0] == "rider\tfare", r.output


def test_table_piped_keeps_whole_file_names(corpus_tables):
    """`table` piped: plain sections, every log file's full name (rich used to cut them at 80 columns)."""
    root = corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
    r = CliRunner().invoke(cli, ["table", str(root)])
    assert r.exit_code == 0 and "…" not in r.stdout
    logs = sorted(p.name for p in root.glob("city=*/.*.log.*"))
    assert logs and all(name in r.stdout for name in logs)
    slices = r.stdout.split("# file slices\n")[1].splitlines()
    assert slices[0] == "partition\tfile id\tbase instant\tbase file\tlog files\tsize"
