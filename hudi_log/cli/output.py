"""What every `hudi-log` command shares: the one error convention, output that fits where it goes, and
JSON for values Avro and Arrow hand back.

Errors: one line on stderr, ``hudi-log: <file or table>: <what is wrong> (<what to do>)``. Exit codes:

* 0: done;
* 2: a usage or input error (bad option, missing or unreadable file, not a log file / table, bad instant),
  found before anything was changed;
* 3: an operation failed in the middle (storage error, a conflicting concurrent commit, a lost lock or
  instant); a live writer holding the instant is refused up front (2);
* ``validate`` keeps its own contract: 0 all intact, 1 some block damaged, 2 a file cannot be read;
  ``records`` exits 2 after printing what it could when it skipped damage (unless ``--skip-damaged``).

Which error class means which code is decided once, here (:func:`exit_code_for`), by base class, so an
error class added below inherits the right code.

Output: when stdout is a terminal, rich tables as wide as the terminal; otherwise plain tab-separated
text (or ``--json``) with nothing cut. Progress bars only go to stderr, and only when it is a terminal.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import os
import sys
import uuid
from typing import Any, Iterable, Sequence

import click

from ..errors import HudiLogError
from ..paths import configure_storage, is_uri

EXIT_OK, EXIT_DAMAGED, EXIT_INPUT, EXIT_FAILED = 0, 1, 2, 3


def _json_default(value: Any):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if hasattr(value, "name") and hasattr(value, "value"):  # enums
        return value.name
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def dumps(value: Any, **kw) -> str:
    return json.dumps(value, default=_json_default, ensure_ascii=False, **kw)


# ---- errors ---------------------------------------------------------------------------------------
class CommandFailed(click.ClickException):
    """A one-line failure with its exit code; raised by commands, printed by the group (cli/__init__)."""

    def __init__(self, message: str, code: int = EXIT_INPUT):
        super().__init__(message)
        self.exit_code = code


def fail(message: str, code: int = EXIT_INPUT) -> None:
    raise CommandFailed(message, code)


def raise_error(e: BaseException) -> None:
    """Report ``e`` as the command's failure, with the exit code its class means."""
    raise CommandFailed(error_message(e), exit_code_for(e)) from None


def _failed_midway() -> tuple[type, ...]:
    # imported here: the CLI's start-up stays light, and these modules sit in lower layers
    from ..conditional_put import ConditionalPutError
    from ..log.storage import StorageError
    from ..log.writer import LogWriterError
    from ..table.errors import ConcurrencyConfigError, ConcurrencyError, ConcurrentWriterError, IntegrityError
    from ..table.timeline.writer import TimelineWriteError

    # refused up front, before anything changed: an unsupported concurrency option, or a live writer's
    # instant (retry once it is done); the other concurrency errors come after work was done; a committed file
    # found missing or damaged (a strict read, compaction) stops an operation on a table that is not whole
    return (StorageError, ConditionalPutError, LogWriterError, TimelineWriteError, ConcurrencyError,
            IntegrityError), (ConcurrencyConfigError, ConcurrentWriterError)


def exit_code_for(e: BaseException) -> int:
    """2 for an input error, 3 for a failure in the middle of an operation (see the module docstring)."""
    midway, config = _failed_midway()
    if isinstance(e, config):
        return EXIT_INPUT
    if isinstance(e, midway):
        return EXIT_FAILED
    if isinstance(e, HudiLogError):
        return EXIT_INPUT
    if isinstance(e, OSError):
        # a file that is not there, a folder where a file should be, no permission: the input's fault;
        # anything else (disk full, I/O error) broke the operation
        input_errors = (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError, FileExistsError)
        return EXIT_INPUT if isinstance(e, input_errors) else EXIT_FAILED
    return EXIT_FAILED


def _hint(e: BaseException) -> str:
    """What to do, for the errors where a hint helps (the first class ``e`` is an instance of)."""
    from ..errors import LogFileNameError, NotALogFileError
    from ..table.properties import NotAHudiTableError

    hints = ((NotALogFileError, "give a Hudi log file; `hudi-log salvage` recovers blocks behind a damaged start"),
             (LogFileNameError, "log files are named .{fileId}_{instant}.log.{version}_{writeToken}"),
             (NotAHudiTableError, "give the table's base path, the folder holding .hoodie"),
             (FileNotFoundError, "check the path"),
             (IsADirectoryError, "give a file, not a folder"),
             (PermissionError, "check the permissions"))
    return next((hint for cls, hint in hints if isinstance(e, cls)), "")


def error_message(e: BaseException) -> str:
    """One line naming the file or table, what is wrong and (where known) what to do."""
    if isinstance(e, OSError) and e.filename is not None:
        text = f"{e.filename}: {e.strerror or e}"
    else:
        text = str(e) or type(e).__name__
    text = " ".join(text.split())  # one line, whatever the error's own text held
    hint = _hint(e)
    return f"{text} ({hint})" if hint and hint not in text else text


def os_error(path: str, e: OSError) -> CommandFailed:
    """An OSError met on ``path`` as the command's failure."""
    return CommandFailed(f"{path}: {e.strerror or e}" + (f" ({_hint(e)})" if _hint(e) else ""), exit_code_for(e))


def warn(message: str) -> None:
    click.echo(f"hudi-log: {' '.join(message.split())}", err=True)


def check_output_path(path: str) -> str:
    """Refuse an output path that cannot be written, before any work is done (exit 2); the path to write.

    Outputs are written under a temporary name beside them and renamed when complete, so a device, pipe
    or socket is refused (the rename would replace it with a plain file), and a symbolic link gives its
    target (the link stays a link). Such an output is a local file: an object-store URI is refused."""
    if is_uri(path):
        fail(f"{path}: this output is written to local disk only (write it here, then copy it to the store)")
    if os.path.isdir(path):
        fail(f"{path}: is a folder (give a file name for the output)")
    if os.path.exists(path) and not os.path.isfile(path):
        fail(f"{path}: is not a regular file (a device, pipe or socket; give a file name for the output)")
    target = os.path.realpath(path) if os.path.islink(path) else path
    parent = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(parent):
        fail(f"{path}: folder {parent} does not exist (create it first)")
    if not os.access(parent, os.W_OK):
        fail(f"{path}: folder {parent} is not writable (check the permissions)")
    return target


def temp_beside(path: str, prefix: str) -> str:
    """A new empty temporary file in ``path``'s folder (renamed onto ``path`` once complete); an error
    names ``path``, not the temporary name."""
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(prefix=prefix, dir=os.path.dirname(os.path.abspath(path)))
    except OSError as e:
        raise os_error(path, e) from None
    # mkstemp makes it private (0600); the output gets the mode a plain new file would have
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)
    os.close(fd)
    return tmp


def hudi_options(pairs) -> dict[str, str]:
    """``--option KEY=VALUE`` (repeatable) as Hudi options; one without ``=`` is a usage error. The
    storage options among them (``fs.s3a.endpoint``, ...) also configure how s3:// paths are reached."""
    out = {}
    for kv in pairs:
        if "=" not in kv:
            fail(f"--option {kv!r}: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        if not k.strip():
            fail(f"--option {kv!r}: no key before '=' (expected KEY=VALUE)")
        out[k.strip()] = v.strip()
    configure_storage(out)
    return out


class StoragePath(click.Path):
    """A table or file argument: a local path (checked as ``click.Path`` checks it) or an object-store
    URI (``s3://bucket/key``), passed on unchecked, since looking costs a request and the command's own
    error names a missing table or file."""

    name = "path"

    def convert(self, value, param, ctx):
        if is_uri(value):
            return value
        return super().convert(value, param, ctx)


# ---- output that fits where it goes ------------------------------------------------------------------
def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def _cell(value: Any) -> str:
    text = "" if value is None else (value if isinstance(value, str) else str(value))
    # one record per line, columns by tabs: escape what would break either
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def plain_lines(columns: Sequence[str], rows: Iterable[Sequence[Any]], header: bool = True) -> Iterable[str]:
    """Tab-separated lines (a header line first), nothing truncated."""
    if header:
        yield "\t".join(columns)
    for row in rows:
        yield "\t".join(_cell(v) for v in row)


def print_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """A rich table on a terminal (as wide as it is, long values folded), else plain tab-separated text."""
    if not stdout_is_terminal():
        for line in plain_lines(columns, rows):
            click.echo(line)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for c in columns:
        table.add_column(c, overflow="fold")
    for row in rows:
        table.add_row(*(_rich_cell(v) for v in row))
    Console().print(table)


def _rich_cell(value: Any) -> str:
    from rich.markup import escape

    return escape("" if value is None else str(value))


def progress(total: int | None, description: str, threshold: int = 1):
    """A progress bar on stderr when stderr is a terminal and there is enough to do; else a no-op.
    ``total=None``: work whose size is not known ahead (a write, a compaction), shown as a pulsing bar
    with the time elapsed. The bar never touches stdout (no redirection), so piped rows stay clean."""
    if (total is not None and total < threshold) or not stderr_is_terminal():
        return _NoProgress()
    from rich.console import Console
    from rich.progress import Progress, TimeElapsedColumn

    bar = Progress(*Progress.get_default_columns(), TimeElapsedColumn(), transient=True, redirect_stdout=False,
                   redirect_stderr=False, console=Console(stderr=True, force_terminal=True))
    return _RichProgress(bar, bar.add_task(description, total=total))


class _NoProgress:
    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def advance(self, n: int = 1) -> None:
        return None


class _RichProgress(_NoProgress):
    def __init__(self, bar, task):
        self._bar, self._task = bar, task

    def __enter__(self):
        self._bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._bar.__exit__(*exc)

    def advance(self, n: int = 1) -> None:
        self._bar.advance(self._task, n)
