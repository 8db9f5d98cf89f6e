"""The format layer: Hudi's log file format, bytes to blocks and back (``org.apache.hudi.common.table.log``
and its ``block`` package), derived from spec/hudi_log.ksy.

* :mod:`.grammar`: the bridge to the Kaitai codec in ``generated/`` (enums, sizes, framing);
* :mod:`.source`: byte sources blocks are read from lazily;
* :mod:`.block`: :class:`~.block.LogBlock`, one block, its header, footer and content;
* :mod:`.reader`: forward reading with Hudi's corruption rules (``HoodieLogFileReader``), reverse reading;
* :mod:`.framing`: blocks framed for writing, and whole files of them;
* :mod:`.log_file_name`: log file names and write tokens (``HoodieLogFile``, ``FSUtils``);
* :mod:`.content`: what is inside a block: Avro records, delete records, HFile and Parquet contents.

Nothing here knows of tables or writes to storage.
"""
