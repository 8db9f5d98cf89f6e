"""Reading tables: snapshot, read-optimized, time-travel and incremental queries planned as one task per
file slice (:mod:`.query`, as hudi-rs's ``Table`` and Hudi's file-group reader do; incremental ranges over
cleaned or archived commits as Hudi's incremental relations treat them, :mod:`.incremental`), the merged log scanner
with Hudi's merge rules (:mod:`.scanner`, ``HoodieMergedLogRecordScanner``), and the columnar merge of a
slice's base file with its logs (:mod:`.merge`)."""
