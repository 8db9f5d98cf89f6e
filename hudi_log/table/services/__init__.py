"""Table services (``org.apache.hudi.table.action``): compaction (:mod:`.compaction`), clustering
(:mod:`.clustering`), clean (:mod:`.clean`) and rollback (:mod:`.rollback`), and what a rerun does with the
plan a killed run left (:mod:`.recovery`). They sit below the write path, which calls them as Hudi's write
client does (the eager rollback of failed writes before a new one)."""
