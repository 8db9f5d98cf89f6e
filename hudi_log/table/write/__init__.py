"""Writing tables (``hudi-client``'s write client and commit actions): creating a table (:mod:`.create`),
key generators (:mod:`.keygen`), the index that tags records as inserts or updates (:mod:`.index`), and
the write itself, from options to a completed instant (:mod:`.client`)."""
