"""The metadata table kept as Java keeps it (``.hoodie/metadata``; ``HoodieBackedTableMetadataWriter``).

What every data-table action hands the metadata table (:mod:`.change`), the record builders of each
metadata partition, the writer that turns them into a metadata deltacommit at the data instant's time, and
the metadata table's own services. Reading the metadata table is ``hudi_log.table.metadata_files``.
"""
