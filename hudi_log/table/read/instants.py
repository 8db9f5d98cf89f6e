"""The instant arguments of a query, checked before anything is read: a malformed time, an option the
query does not take, or a time travel Apache Hudi refuses is a typed error, never an empty or full answer.

* Formats (Hudi's Spark ``HoodieSqlCommonUtils.formatQueryInstant``): ``yyyyMMddHHmmss[SSS]`` (kept as
  given, and checked to be a date), ``yyyy-MM-dd HH:mm:ss[.SSS]`` and ``yyyy-MM-dd`` (turned into the
  17-digit instant). Incremental bounds are compared as strings by Hudi and are often given as ``000``:
  any string of up to 17 digits is taken for ``begin`` / ``end``, besides the date forms.
* Which query takes which option (Hudi's ``DataSourceReadOptions``): ``as_of`` is for snapshot and
  read-optimized reads, ``begin`` / ``end`` for incremental ones only.
* Time travel (``TimelineUtils.validateTimestampAsOf``): refused at or after the first incomplete commit
  (a pending commit, delta commit or replace commit that is not a clustering), and, when a clean has
  completed, before the earliest commit its metadata says it retained (``earliestCommitToRetain``); a
  clean that records none (a file-versions cleaner) bounds time travel at the first completed write
  still on the active timeline.
"""

from __future__ import annotations

import datetime
import re

from ..errors import InstantArgumentError, TimeTravelError
from ..timeline.pending import incomplete_commits
from ..timeline.timeline import CLEAN, WRITE_ACTIONS, Timeline, TimelineError

_DIGITS = re.compile(r"^\d+$")
_DATE_FORMS = ((re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$"), "%Y-%m-%d %H:%M:%S.%f"),
               (re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"), "%Y-%m-%d %H:%M:%S"),
               (re.compile(r"^\d{4}-\d{2}-\d{2}$"), "%Y-%m-%d"))
FORMATS = "yyyyMMddHHmmssSSS, yyyyMMddHHmmss, 'yyyy-MM-dd HH:mm:ss[.SSS]' or yyyy-MM-dd"


def _is_date(digits: str) -> bool:
    if set(digits) == {"0"} or int(digits) < 10:  # Hudi's special instants (init, bootstrap) are not dates
        return True
    try:
        datetime.datetime.strptime(digits[:14], "%Y%m%d%H%M%S")
    except ValueError:
        return False
    return True


def parse_instant(value, option: str, table_path, bound: bool = False) -> str:
    """``value`` as an instant time (digits), or :class:`InstantArgumentError` naming ``option``.

    ``bound``: an incremental bound, where any digit string of up to 17 digits is taken (``000``)."""
    s = str(value).strip()
    if _DIGITS.match(s):
        if (bound and len(s) <= 17 and (len(s) not in (14, 17) or _is_date(s))) \
                or (len(s) in (14, 17) and _is_date(s)):
            return s
    for pattern, fmt in _DATE_FORMS:
        if pattern.match(s):
            try:
                t = datetime.datetime.strptime(s, fmt)
            except ValueError:
                break
            return t.strftime("%Y%m%d%H%M%S") + f"{t.microsecond // 1000:03d}"
    raise InstantArgumentError(table_path, f"{option} {s!r} is not an instant time (use {FORMATS})")


def check_query_options(table_path, query: str, as_of, begin, end, names: dict[str, str] | None = None) -> None:
    """An option the query does not take is an error, not ignored. ``names`` spells the options as the
    caller's user knows them (``--as-of``, ``as.of.instant``); the default is the API's."""
    names = {"as_of": "as_of", "begin": "begin", "end": "end", **(names or {})}
    if query == "incremental":
        if as_of is not None:
            raise InstantArgumentError(table_path, f"{names['as_of']} is for snapshot and read-optimized "
                                       f"queries; an incremental query takes {names['begin']} and {names['end']}")
        if begin is None:
            raise InstantArgumentError(table_path, f"an incremental query needs {names['begin']}")
        return
    given = [names[k] for k, v in (("begin", begin), ("end", end)) if v is not None]
    if given:
        raise InstantArgumentError(table_path, f"{' and '.join(given)} only apply to an incremental query "
                                   f"(this one is {query})")


def query_arguments(table_path, query: str, as_of, begin, end, names: dict[str, str] | None = None,
                    check: bool = True) -> dict:
    """``{"as_of", "begin", "end"}`` checked (:func:`check_query_options`, skipped with ``check=False``)
    and parsed (:func:`parse_instant`); errors name the options as ``names`` spells them."""
    if check:
        check_query_options(table_path, query, as_of, begin, end, names)
    names = {"as_of": "as_of", "begin": "begin", "end": "end", **(names or {})}
    given = {"as_of": as_of, "begin": begin, "end": end}
    return {k: None if v is None else parse_instant(v, names[k], table_path, bound=k != "as_of")
            for k, v in given.items()}


def validate_as_of(timeline: Timeline, as_of: str) -> None:
    """Refuse a time travel to ``as_of`` as Hudi's ``TimelineUtils.validateTimestampAsOf`` does."""
    path = timeline.table_path
    pending = incomplete_commits(timeline)
    if pending and as_of >= pending[0].requested_time:
        first = pending[0]
        raise TimeTravelError(path, f"time travel to {as_of} refused: it is not earlier than the first incomplete "
                              f"commit {first.requested_time} ({first.action}, {first.state.lower()}), whose data "
                              "is not readable yet")
    cleans = [i for i in timeline.completed() if i.action == CLEAN]
    if not cleans:
        return
    last = cleans[-1]
    try:
        retained = (timeline.commit_metadata(last) or {}).get("earliestCommitToRetain") or ""
    except TimelineError as e:
        raise TimeTravelError(path, f"time travel to {as_of} refused: the metadata of clean {last.requested_time} "
                              f"cannot be read, so whether it removed that time's files is unknown ({e.message})")
    if retained:
        if as_of < retained:
            raise TimeTravelError(path, f"time travel to {as_of} refused: clean {last.requested_time} kept only the "
                                  f"files of commits from {retained} on, so that time's files are gone; retain "
                                  "more commits (hoodie.cleaner.commits.retained) to travel further back")
        return
    writes = [i for i in timeline.completed() if i.action in WRITE_ACTIONS]
    if writes and as_of < writes[0].requested_time:
        raise TimeTravelError(path, f"time travel to {as_of} refused: the earliest write still on the active "
                              f"timeline is {writes[0].requested_time}, and clean {last.requested_time} may have "
                              "removed older files")
