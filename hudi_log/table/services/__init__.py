"""Table services (``org.apache.hudi.table.action``): compaction (:mod:`.compaction`), clean
(:mod:`.clean`) and rollback (:mod:`.rollback`). They sit below the write path, which calls them as
Hudi's write client does (the eager rollback of failed writes before a new one)."""
