"""Log file names: build, parse, order (behaviour catalogue F1-F8)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, strategies as st

from hudi_log import LogFileNameError
from hudi_log.format.log_file_name import (
    LOG_FILE_PATTERN,
    LogFileName,
    latest_log_file,
    latest_log_version,
    make_write_token,
    sort_log_files,
)

FILE_ID = "136281f3-c24e-423b-a65a-95dbfbddce1d"


def test_f1_current_name():
    lf = LogFileName.parse(f".{FILE_ID}_100.log.2_1-0-1")
    assert lf.file_id == FILE_ID
    assert lf.instant == "100"
    assert lf.version == 2
    assert lf.write_token == "1-0-1"
    assert (lf.task_partition_id, lf.stage_id, lf.attempt_id) == (1, 0, 1)
    assert lf.extension == "log" and lf.is_delta_log and not lf.cdc
    assert str(lf) == f".{FILE_ID}_100.log.2_1-0-1"


def test_f1_parse_takes_the_last_path_component():
    lf = LogFileName.parse(f"/table/city=x/.{FILE_ID}_100.log.2_1-0-1")
    assert lf.file_id == FILE_ID and lf.version == 2


def test_f2_old_name_without_token():
    lf = LogFileName.parse(f".{FILE_ID}_100.log.1")
    assert lf.write_token is None
    assert lf.task_partition_id is None and lf.stage_id is None and lf.attempt_id is None
    assert str(lf) == f".{FILE_ID}_100.log.1"


def test_f3_cdc_suffix():
    lf = LogFileName.parse(f".{FILE_ID}_100.log.2_1-0-1.cdc")
    assert lf.cdc and lf.extension == "log" and lf.is_delta_log
    assert lf.write_token == "1-0-1"
    assert str(lf).endswith(".log.2_1-0-1.cdc")


def test_f4_archive_log():
    lf = LogFileName.parse(".commits_.archive.2_1-0-1")
    assert lf.file_id == "commits" and lf.instant == "" and lf.extension == "archive"
    assert lf.version == 2 and not lf.is_delta_log


def test_f5_sort_order():
    expected = [
        LogFileName("f", "1", 0, "0-0-1"),
        LogFileName("f", "1", 0, "1-1-1"),
        LogFileName("f", "1", 1, "0-0-1"),
        LogFileName("f", "1", 1, "1-1-1"),
        LogFileName("f", "2", 0, "0-0-1"),
        LogFileName("f", "2", 0, "1-1-1"),
    ]
    shuffled = expected[:]
    random.Random(7).shuffle(shuffled)
    assert sort_log_files(shuffled) == expected
    assert sort_log_files(str(x) for x in reversed(expected)) == expected


def test_f5_version_is_numeric_and_missing_token_first():
    names = [".f_1.log.10_0-0-1", ".f_1.log.2_0-0-1", ".f_1.log.2", ".f_1.log.9_5-0-1"]
    assert [str(x) for x in sort_log_files(names)] == [".f_1.log.2", ".f_1.log.2_0-0-1", ".f_1.log.9_5-0-1", ".f_1.log.10_0-0-1"]


def test_f6_cdc_sorts_right_after_its_twin():
    plain = LogFileName("f", "1", 1, "1-0-1")
    cdc = LogFileName("f", "1", 1, "1-0-1", cdc=True)
    nxt = LogFileName("f", "1", 1, "1-0-2")
    assert sort_log_files([nxt, cdc, plain]) == [plain, cdc, nxt]


def test_f7_latest_version():
    names = [f".{FILE_ID}_100.log.{v}_1-0-1" for v in (1, 3, 2)] + [
        f".{FILE_ID}_100.log.9_1-0-1.cdc",  # CDC files are not in the slice
        f".{FILE_ID}_200.log.7_1-0-1",  # another instant
        ".other-id_100.log.8_1-0-1",  # another file group
        f"{FILE_ID}_0-1-2_100.parquet",  # a base file
        ".hoodie_partition_metadata",
    ]
    latest = latest_log_file(names, FILE_ID, "100")
    assert latest is not None and latest.version == 3
    assert latest_log_version(names, FILE_ID, "100") == (3, "1-0-1")
    assert latest_log_version(names, FILE_ID, "300") is None
    assert latest_log_file(names, FILE_ID, "100", include_cdc=True).version == 9


@pytest.mark.parametrize(
    "bad",
    [
        f"{FILE_ID}_100.log.1_1-0-1",  # no leading dot
        f".{FILE_ID}100.log.1_1-0-1",  # no "_" between file id and instant
        f".{FILE_ID}_100.log.1_1-0-1.extra",  # extra dot part
        f".{FILE_ID}_100.log.1.2_1-0-1",  # extra dot part
        "._100.log.1_1-0-1",  # empty file id
        f".{FILE_ID}_100.log._1-0-1",  # empty version
        f".{FILE_ID}_100.log.x_1-0-1",  # non-integer version
        f".{FILE_ID}_100.log.1_1-0",  # short token
        f".{FILE_ID}_100.log.1_a-b-c",  # non-numeric token
        f".{FILE_ID}_100.parquet.1_1-0-1",  # not a log extension
        f".{FILE_ID}_100.log.1.cdc",  # .cdc needs a token
        f".{FILE_ID}_100.log.99999999999_1-0-1",  # version beyond a Java int
        f".{FILE_ID}_100.log.1_1-0-1\n",  # trailing newline
        "",
    ],
)
def test_f8_malformed_names_are_rejected(bad):
    with pytest.raises(LogFileNameError) as e:
        LogFileName.parse(bad)
    assert "log file name" in str(e.value) or "version" in str(e.value)
    assert isinstance(e.value, ValueError)  # LogFileNameError is also a ValueError


def test_f8_round_trip_of_hudi_rs_examples():
    for name in [
        ".54e9a5e9-ee5d-4ed2-acee-720b5810d380-0_20250109233025121.log.1_0-51-115",
        ".ee2ace10-7667-40f5-9848-0a144b5ea064-0_20250113230302428.log.1_0-188-387",
    ]:
        assert str(LogFileName.parse(name)) == name


def test_building_rejects_bad_parts():
    for kw in (
        dict(file_id="a_b", instant="1", version=1),
        dict(file_id="a.b", instant="1", version=1),
        dict(file_id="", instant="1", version=1),
        dict(file_id="a", instant="1.2", version=1),
        dict(file_id="a", instant="1", version=-1),
        dict(file_id="a", instant="1", version=True),
        dict(file_id="a", instant="1", version=1, write_token="1-0"),
        dict(file_id="a", instant="1", version=1, extension="data"),
        dict(file_id="a", instant="1", version=1, cdc=True),
    ):
        with pytest.raises(LogFileNameError):
            LogFileName(**kw)


def test_roll_over_and_write_token():
    lf = LogFileName("f", "100", 1, "0-1-2")
    assert lf.rolled_over() == LogFileName("f", "100", 2, "0-1-2")
    assert lf.rolled_over("3-4-5") == LogFileName("f", "100", 2, "3-4-5")
    assert make_write_token(3, 4, 5) == "3-4-5"
    with pytest.raises(LogFileNameError):
        make_write_token(-1, 0, 0)


_ids = st.text(alphabet=st.characters(blacklist_characters="._/\n\r", blacklist_categories=("Cs",)), min_size=1, max_size=20)
_instants = st.text(alphabet="0123456789", min_size=0, max_size=17)
_tokens = st.none() | st.tuples(*[st.integers(0, 10**6)] * 3).map(lambda t: "-".join(map(str, t)))


@given(_ids, _instants, st.integers(0, 2**31 - 1), _tokens, st.booleans(), st.sampled_from(["log", "archive"]))
def test_round_trip_property(file_id, instant, version, token, cdc, ext):
    cdc = cdc and token is not None
    lf = LogFileName(file_id, instant, version, token, ext, cdc)
    name = str(lf)
    assert LOG_FILE_PATTERN.fullmatch(name)
    assert LogFileName.parse(name) == lf


def test_every_corpus_log_name_parses_and_round_trips(corpus_log_files):
    seen = 0
    for path in corpus_log_files:
        lf = LogFileName.parse(path.name)
        assert str(lf) == path.name
        assert lf.write_token is not None and lf.is_delta_log
        seen += 1
    assert seen > 0


def test_corpus_slices_sort_like_hudi(corpus_log_files):
    # within each (directory, file id) the instants in the names must sort as the timeline does
    groups: dict = {}
    for path in corpus_log_files:
        lf = LogFileName.parse(path.name)
        groups.setdefault((path.parent, lf.file_id), []).append(lf)
    for files in groups.values():
        ordered = sort_log_files(files)
        keys = [(f.instant, f.version) for f in ordered]
        assert keys == sorted(keys)
