"""Checking log files: framing (as Apache Hudi's ``HoodieLogFileReader`` decides what is a CORRUPT_BLOCK)
and, beyond what Hudi's reader checks while scanning, every block's content and header values.

Hudi's reader only checks a block's framing while it scans; a block whose framing is intact but whose
content was overwritten surfaces later, when a reader decodes it (``HoodieAvroDataBlock``,
``HoodieDeleteBlock``, ``HoodieParquetDataBlock``, ``HoodieHFileDataBlock`` deserialising their
content), as an exception in the middle of a query. :func:`validate_log_file` decodes each block's
content up front the way those classes would, and reports a block that does not decode as damaged,
with its index, offset and the reason, so ``hudi-log validate`` cannot say OK for a file a reader then
fails on. ``deep=False`` keeps the framing-only check (fast: no content is read).

Avro blocks are decoded the fast, columnar way only when that decode is proven faithful (its rows
re-encode to the block's bytes); the columnar decoder reads past some damage Java's reader fails on,
so anything else goes through the strict record path (:func:`_columnar_round_trips`).

Header values checked (``HoodieLogBlock.HeaderMetadataType``): INSTANT_TIME and TARGET_INSTANT_TIME are
instant times (:func:`instant_time_problem`), COMPACTED_BLOCK_TIMES a comma-separated list of them,
COMMAND_BLOCK_TYPE a known ``HoodieCommandBlockTypeEnum`` ordinal, SCHEMA an Avro schema in JSON.

The table layer's ``validate --table`` calls :func:`validate_log_file` on every log file of a table.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

from . import grammar
from ..errors import ContentError, HudiLogError, LogFormatError, NotALogFileError
from .block import LogBlock
from .grammar import BlockType, HeaderKey
from ..paths import is_uri
from .reader import RULES, open_log
from .source import PathOrFile

#: Instant times as Hudi makes them (``HoodieInstantTimeGenerator``): ``yyyyMMddHHmmss`` (14 digits,
#: old tables), ``yyyyMMddHHmmssSSS`` (17), and the metadata table's instants made by appending a
#: 3-digit suffix to one (``HoodieTableMetadataUtil``: compaction/clean instants, up to 20 digits).
_INSTANT_TIME = re.compile(r"[0-9]{14,20}")
#: What a reader needs of an instant in a block header: digits, compared as strings with the timeline's
#: (Hudi's own tests write short ones such as "100", and its reader accepts them).
_ANY_INSTANT = re.compile(r"[0-9]{1,20}")

#: rules of content damage, beside the framing rules of reader.RULES
CONTENT_RULES = {
    "content": "the block's framing is intact but its content does not decode",
    "header-value": "a header value is malformed (instant time, schema, command type)",
}


def instant_time_problem(text: str, strict: bool = True) -> str | None:
    """Why ``text`` is not an instant time, or None when it is one. ``strict``: as Hudi makes them (what a
    new write must use); else any run of digits, as headers written by tests may carry."""
    if isinstance(text, str) and (_INSTANT_TIME if strict else _ANY_INSTANT).fullmatch(text):
        return None
    if strict:
        return (f"{text!r} is not an instant time (yyyyMMddHHmmssSSS: 17 digits; "
                "14 for old tables, up to 20 for metadata-table instants)")
    return f"{text!r} is not an instant time (digits)"


@dataclass(frozen=True)
class BlockProblem:
    """One damaged span (framing) or one block whose content or header does not decode."""

    index: int  # position of the block (or span) in file order, from 0
    offset: int  # a block: its magic's first byte; a damaged span: where it starts, as Hudi reports it
    length: int
    rule: str  # a key of reader.RULES or CONTENT_RULES
    field: str
    reason: str
    block_type: str | None = None
    #: a damaged span: where the bad block's magic was (None for garbage)
    magic_offset: int | None = None

    @property
    def framing(self) -> bool:
        return self.rule in RULES

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "offset": self.offset, "length": self.length, "rule": self.rule,
                "rule_text": RULES.get(self.rule) or CONTENT_RULES[self.rule], "field": self.field,
                "detail": self.reason, "block_type": self.block_type,
                "magic_offset": self.magic_offset}


@dataclass
class FileReport:
    """What :func:`validate_log_file` found in one file."""

    path: str
    blocks: int = 0  # blocks and damaged spans seen
    intact: int = 0
    problems: list[BlockProblem] = field(default_factory=list)
    #: intact blocks Apache Hudi's reader nevertheless reports as corrupt (garbage follows them)
    skipped_by_hudi: list[tuple[int, int]] = field(default_factory=list)
    #: the file cannot be read as a log file at all (missing, not a log file, I/O error)
    error: str | None = None
    deep: bool = True

    @property
    def state(self) -> str:
        return "UNREADABLE" if self.error else ("DAMAGED" if self.problems else "OK")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"path": self.path, "state": self.state, "blocks": self.blocks, "intact": self.intact,
                             "damage": [p.to_dict() for p in self.problems], "content_checked": self.deep,
                             "skipped_by_hudi": [{"offset": o, "length": n} for o, n in self.skipped_by_hudi]}
        if self.error:
            d["error"] = self.error
        return d


def _header_problem(block: LogBlock) -> tuple[str, str] | None:
    """(field, reason) of the first malformed header value, or None."""
    for key in (HeaderKey.instant_time, HeaderKey.target_instant_time):
        value = block._header_value(key)
        if value is not None and (why := instant_time_problem(value, strict=False)):
            return f"header.{grammar.header_key_name(key)}", why
    if block.instant_time is None and block.block_type != BlockType.command_block:
        # every block Hudi writes carries its instant; a reader cannot place one without it
        return "header.INSTANT_TIME", "missing (every data and delete block carries its instant)"
    times = block.compacted_block_times
    if times is not None:
        for t in times.split(","):
            if why := instant_time_problem(t, strict=False):
                return "header.COMPACTED_BLOCK_TIMES", why
    if block.block_type == BlockType.command_block:
        raw = block._header_value(HeaderKey.command_block_type)
        known = {str(int(c)) for c in grammar.CommandBlockType}
        if raw not in known:
            return "header.COMMAND_BLOCK_TYPE", f"{raw!r} is not a command block type ({', '.join(sorted(known))})"
        if block.target_instant_time is None:
            return "header.TARGET_INSTANT_TIME", "missing (a rollback block names the instant it rolls back)"
    if block.schema is not None or block.block_type in grammar.RECORD_BLOCK_TYPES \
            or block.block_type == BlockType.hfile_data_block:
        from .content.avro import parsed_schema

        try:
            parsed_schema(block.writer_schema())
        except ContentError as e:
            return e.field, e.message
        except Exception as e:  # fastavro's SchemaParseException and friends
            return "header.SCHEMA", f"not an Avro schema: {type(e).__name__}: {e}"
    return None


def check_block_header(block: LogBlock) -> tuple[str, str, str] | None:
    """(rule, field, reason) of an intact block's first malformed header value, or None: the cheap half of
    :func:`check_block_content`, for a reader that decodes the content itself (``hudi-log records``)."""
    if block.corrupt or block.format_version == 0:
        return None  # damaged spans are framing damage; legacy blocks carry no header or type
    problem = _header_problem(block)
    return ("header-value", *problem) if problem else None


def check_block_content(block: LogBlock) -> tuple[str, str, str] | None:
    """Decode an intact block's header values and content as a reader would: (rule, field, reason) of the
    first problem, or None when everything decodes. Reads the block's content (one block at a time)."""
    if block.corrupt or block.format_version == 0:
        return None
    if problem := check_block_header(block):
        return problem
    try:
        if block.block_type in grammar.RECORD_BLOCK_TYPES:
            if not _columnar_round_trips(block):
                block.records()  # the strict record path decides, and names the damage
        elif block.block_type == BlockType.delete_block:
            # as a merge reads them: columns, no record object per delete (the same bytes accepted as
            # by deletes(), which decides and names the damage of any payload the columns path leaves)
            block.delete_columns()
        elif block.block_type == BlockType.parquet_data_block:
            block.table(verify_checksums=True).validate(full=True)  # full: string columns must be valid UTF-8
        elif block.block_type == BlockType.hfile_data_block:
            block.records()  # cells, then each value as Avro under the SCHEMA header
    except ContentError as e:
        return "content", e.field, e.message
    except LogFormatError as e:
        return "content", e.field, e.message
    except Exception as e:  # a decoder failing in a way we did not name is still damage, never a crash
        return "content", "content", f"{type(e).__name__}: {e}"
    return None


def iter_checked(path_or_file: PathOrFile, deep: bool = True) -> Iterator[tuple[int, LogBlock, BlockProblem | None]]:
    """(index, block, problem) for every block and damaged span of a log file, in file order.

    A file whose first magic is damaged is read from its next magic on (the bytes before it are one
    damaged span); NotALogFileError only when no intact block follows. With ``deep`` each intact block's
    header values and content are decoded (:func:`check_block_content`)."""
    held: list | None = None  # after a damaged first magic: spans held until an intact block shows up
    for index, block in enumerate(open_log(path_or_file, resync=True)):
        problem = None
        if block.corrupt:
            problem = BlockProblem(index, block.offset, block.length, block.corrupt_rule or "garbage", "framing",
                                   block.corrupt_detail or "", None, block.magic_offset)
        elif deep and (found := check_block_content(block)):
            problem = BlockProblem(index, block.offset, block.length, found[0], found[1], found[2],
                                   block.block_type_name)
        if index == 0 and problem is not None and problem.rule == "bad-first-magic":
            held = []
        if held is not None:
            held.append((index, block, problem))
            if problem is None:
                yield from held
                held = None
            continue
        yield index, block, problem
    if held is not None:
        raise NotALogFileError(held[0][1].path, 0, "magic", "no block magic at the start and no intact block "
                                                            "after it: not a Hudi log file")


def validate_log_file(path_or_file: PathOrFile, deep: bool = True) -> FileReport:
    """Check one log file: every damaged span, and (``deep``, the default) every block whose header values
    or content do not decode. Never raises for the file's contents: an unreadable file comes back with
    ``error`` set."""
    name = path_or_file if isinstance(path_or_file, str) else getattr(path_or_file, "name", "<bytes>")
    report = FileReport(path=str(name), deep=deep)
    if not deep and isinstance(path_or_file, (str, os.PathLike)) and not is_uri(path_or_file):  # local files only
        n = _fast_framing(path_or_file)
        if n is not None:
            report.blocks = report.intact = n
            return report
    try:
        for _, block, problem in iter_checked(path_or_file, deep):
            report.blocks += 1
            if problem is not None:
                report.problems.append(problem)
                continue
            report.intact += 1
            if block.skipped_by_hudi:
                report.skipped_by_hudi.append((block.offset, block.length))
    except HudiLogError as e:
        report.error = str(e)
    except OSError as e:
        report.error = f"{name}: {e.strerror or e}"
    return report


def _fast_framing(path) -> int | None:
    """The block count of the compiled framing scan (:mod:`.fast_scan`) when it takes the whole file as
    intact; None when it does not (damage, a legacy block), and the full reader then says what is wrong."""
    from .fast_scan import FastScanFallback, frames

    try:
        return len(frames(path))
    except (FastScanFallback, OSError, ValueError):
        return None


def _columnar_round_trips(block: LogBlock) -> bool:
    """Whether an Avro data block's columnar decode is faithful: re-encoding its rows (the compiled row
    encoder, for flat schemas) gives back the content's record run byte for byte.

    The columnar decoder alone is not enough to call a block intact: polars takes any union branch index
    other than null's for the value branch, so a damaged index byte (Java's ``GenericDatumReader``
    fails on it) decodes into a plausible value. The record path (fastavro) refuses such a datum but is
    several times slower; this check keeps validation at the columnar speed for the schemas Hudi writes
    and leaves everything else (nested types, non-minimal varints, any mismatch) to the record path."""
    from .content import columnar_encode

    plans = columnar_encode.plan(block.writer_schema())
    if plans is None:
        return False
    with _panic_text_held():
        table = block.to_arrow()
    try:
        columns = {p.name: table.column(p.name) for p in plans}
        encoded = columnar_encode.encode_table(plans, columns, table.num_rows)
    except Exception:  # a column the encoder does not take as decoded: the record path decides
        return False
    # the prefix too (content version, record count): the columnar decoder does not read it
    expected = grammar.avro_content_prefix(grammar.CURRENT_AVRO_CONTENT_VERSION, table.num_rows)
    return expected + bytes(encoded.span(0, len(encoded))) == block.content()


@contextmanager
def _panic_text_held() -> Iterator[None]:
    """Keep a polars panic's text off the terminal while a damaged block is decoded.

    polars reaches Python with a panic as an exception (the columnar decoder then gives way to the record
    path, which names the damage), but Rust's panic hook first writes its message and a backtrace straight
    to file descriptor 2: on damaged input, `hudi-log validate` would print what looks like a crash.
    For the decode, descriptor 2 goes to a temporary file; what was written there is passed on afterwards
    unless it holds a panic. Validation runs in one thread, so nothing else's output is at stake beyond a
    progress bar's frame."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no descriptor 2 (embedded, closed): nothing to keep off it
        yield
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            text = held.read()
            if text and b"panicked at" not in text:
                os.write(2, text)
