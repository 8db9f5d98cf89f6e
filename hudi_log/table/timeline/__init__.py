"""The timeline (``org.apache.hudi.common.table.timeline``): instants and their states, reading the active
timeline (:mod:`.timeline`), writing instant files (:mod:`.writer`), commit metadata and write stats
(:mod:`.commit_metadata`), and the plans of pending compactions and clusterings (:mod:`.pending`)."""
