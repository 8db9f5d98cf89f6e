"""The file-system view (``org.apache.hudi.common.table.view``): partitions, file groups and file slices as
the timeline makes them visible (:mod:`.file_system_view`), and base Parquet files: their names, reading
them into the table's schema and writing them as Hudi's Parquet writer does (:mod:`.base_file`)."""
