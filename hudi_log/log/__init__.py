"""The log layer: writing log files to storage, as Hudi's ``HoodieLogFormatWriter`` and
``HoodieAppendHandle`` do.

* :mod:`.storage`: where bytes go (local files through pyarrow.fs), with Hudi's rule that a file is
  appended to only where the store can append, and durability (fsync) before a commit;
* :mod:`.writer`: :class:`~.writer.LogWriter`, appends framed blocks to a file group's log, rolling
  over to a new log version as Hudi does;
* :mod:`.append_handle`: :class:`~.append_handle.AppendHandle`, one file group's records and deletes
  for one instant, turned into data and delete blocks;
* :mod:`.write_stats`: what an append reports for the commit's write stat.

It knows file groups and instants by name only; the table layer decides which to write.
"""
