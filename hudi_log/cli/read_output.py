"""`hudi-log read`'s output, written batch by batch as file slices are read, so memory stays bounded by
the slices in flight rather than the table, and the first rows appear before the last slice is read.

Formats: ``table`` is a rich table on a terminal and tab-separated text anywhere else (a header line,
then a line per row; tabs, newlines and backslashes inside values escaped as ``\\t``, ``\\n``, ``\\\\``;
nested values as JSON); ``jsonl`` a JSON object per line; ``parquet`` one Parquet file. An output file
is written under a temporary name and renamed when complete, so a failure leaves no half file.
"""

from __future__ import annotations

import os
import sys
from typing import Iterable, Optional

import click
import pyarrow as pa
import pyarrow.compute as pc

from .output import dumps, os_error, progress, stderr_is_terminal, stdout_is_terminal, temp_beside

BATCH_ROWS = 65536
_TERMINAL_ROWS = 1000  # rows per rich table on a terminal
_PRIMITIVE = (pa.types.is_string, pa.types.is_large_string, pa.types.is_integer, pa.types.is_floating,
              pa.types.is_boolean)


def _text_column(col: pa.Array) -> pa.Array:
    """A column as escaped text (nulls empty): one cell of a tab-separated line."""
    t = col.type
    if pa.types.is_nested(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        col = pa.array([None if v is None else dumps(v).strip('"') if isinstance(v, (bytes, str)) else dumps(v)
                        for v in col.to_pylist()], pa.string())
    elif not (pa.types.is_string(t) or pa.types.is_large_string(t)):
        col = pc.cast(col, pa.string())
    for old, new in (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r")):
        col = pc.replace_substring(col, old, new)
    return pc.fill_null(col, "")


def _tsv_lines(batch: pa.RecordBatch) -> str:
    if batch.num_rows == 0:
        return ""
    cols = [_text_column(c) for c in batch.columns]
    lines = cols[0] if len(cols) == 1 else pc.binary_join_element_wise(*cols, "\t")
    return "\n".join(lines.to_pylist()) + "\n"


def _jsonl(batch: pa.RecordBatch) -> str:
    if batch.num_rows == 0:
        return ""
    if all(any(check(f.type) for check in _PRIMITIVE) for f in batch.schema):
        # flat columns of these types print the same through polars, many times faster
        import polars as pl

        return pl.from_arrow(batch).write_ndjson()
    return "".join(dumps(r) + "\n" for r in batch.to_pylist())


class _Sink:
    """Where the batches go: stdout, or a temporary file renamed to ``output`` on close."""

    def __init__(self, fmt: str, output: Optional[str], schema: pa.Schema):
        self.fmt, self.output, self.schema = fmt, output, schema
        self.tmp = None
        self.header_done = False
        self.shown = 0  # rows printed so far (rich tables are titled by row numbers)
        self.pending: list[tuple] = []
        self.rich = fmt == "table" and output is None and stdout_is_terminal()
        if output:
            self.tmp = temp_beside(output, ".hudi-log-read-")
        if fmt == "parquet":
            import pyarrow.parquet as pq

            self.writer = pq.ParquetWriter(self.tmp, schema)
        else:
            self.file = open(self.tmp, "w", encoding="utf-8") if self.tmp else sys.stdout

    def write(self, batch: pa.RecordBatch) -> None:
        try:
            self._write(batch)
        except OSError as e:
            raise self._failed(e) from None

    def _failed(self, e: OSError) -> BaseException:
        # a write error (disk full) names the output, not its temporary name; a closed pipe stays what it
        # is (the CLI stops quietly, as `| head` expects)
        return e if isinstance(e, BrokenPipeError) else os_error(self.output or "standard output", e)

    def _write(self, batch: pa.RecordBatch) -> None:
        if self.fmt == "parquet":
            self.writer.write_batch(batch)
        elif self.fmt == "jsonl":
            self.file.write(_jsonl(batch))
        elif self.rich:
            self._rich(batch)
        else:
            if not self.header_done:
                self.file.write("\t".join(self.schema.names) + "\n")
                self.header_done = True
            self.file.write(_tsv_lines(batch))

    def _rich(self, batch: pa.RecordBatch | None) -> None:
        """Rows gathered across slices into tables of up to _TERMINAL_ROWS rows (None: print the rest)."""
        from .output import print_table

        if batch is not None:
            self.pending.extend(tuple(r.values()) for r in batch.to_pylist())
        while self.pending and (len(self.pending) >= _TERMINAL_ROWS or batch is None):
            part, self.pending = self.pending[:_TERMINAL_ROWS], self.pending[_TERMINAL_ROWS:]
            print_table(f"rows {self.shown + 1}-{self.shown + len(part)}", self.schema.names, part)
            self.shown += len(part)

    def close(self, rows: int) -> None:
        try:
            self._close()
        except OSError as e:
            raise self._failed(e) from None
        if self.output or self.rich:
            click.echo(f"{rows} row(s)" + (f" written to {self.output}" if self.output else ""), err=bool(self.output))

    def _close(self) -> None:
        if self.fmt == "parquet":
            self.writer.close()
        elif self.tmp:
            self.file.close()
        elif self.rich:
            self._rich(None)
        elif self.fmt == "table" and not self.header_done:
            self.file.write("\t".join(self.schema.names) + "\n")
        else:
            self.file.flush()
        if self.tmp:
            os.replace(self.tmp, self.output)
            self.tmp = None

    def discard(self) -> None:
        if self.tmp and os.path.exists(self.tmp):
            if self.fmt == "parquet":
                try:
                    self.writer.close()
                except Exception:  # already failing: the original error is the one to report
                    pass
            elif self.file is not sys.stdout:
                self.file.close()
            os.unlink(self.tmp)


def stream_table(schema: pa.Schema, parts: Iterable[pa.Table], slices: int, fmt: str, output: Optional[str],
                 limit: Optional[int]) -> int:
    """Write the tables of ``parts`` (one per file slice) as they come; stop after ``limit`` rows."""
    sink = _Sink(fmt, output, schema)
    rows = 0
    # a bar only where it does not mix with the rows: stderr on a terminal, the rows elsewhere
    show = stderr_is_terminal() and (output is not None or not stdout_is_terminal())
    try:
        with progress(slices if show else 0, "reading file slices") as bar:
            for table in parts:
                for batch in table.to_batches(max_chunksize=BATCH_ROWS):
                    if limit is not None:
                        batch = batch.slice(0, max(0, limit - rows))
                    if batch.num_rows:
                        sink.write(batch)
                    rows += batch.num_rows
                    if limit is not None and rows >= limit:
                        break
                bar.advance()
                if limit is not None and rows >= limit:
                    break
        sink.close(rows)
    except BaseException:
        sink.discard()
        raise
    finally:
        # stopped early (--limit): end the reader now, so no slice is read past the rows asked for
        close = getattr(parts, "close", None)
        if close is not None:
            close()
    return rows
