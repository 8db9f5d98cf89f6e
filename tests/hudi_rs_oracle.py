"""hudi-rs (PyPI ``hudi``) as the read oracle: one helper for snapshot, time travel and incremental reads."""

from __future__ import annotations

import pyarrow as pa


def hudi_rs_rows(path, as_of=None, begin=None, end=None) -> list[dict]:
    """Rows hudi-rs reads from the table at ``path``: the snapshot, as of ``as_of``, or (``begin`` given)
    the incremental query from ``begin`` to ``end``."""
    import hudi

    t = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    o = hudi.HudiReadOptions()
    if as_of is not None:
        o = o.with_as_of_timestamp(as_of)
    if begin is not None:
        o = o.with_query_type(hudi.HudiQueryType.Incremental).with_start_timestamp(begin).with_end_timestamp(end)
    batches = t.read(o)
    return pa.Table.from_batches(batches).to_pylist() if batches else []
