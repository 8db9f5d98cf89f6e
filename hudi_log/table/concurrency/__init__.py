"""Several processes on one table (docs/concurrency.md), as Java Hudi's client keeps them apart:
heartbeats of running instants (:mod:`.heartbeat`, ``HoodieHeartbeatClient``), the table lock
(:mod:`.lock`, ``LockManager`` with ``FileSystemBasedLockProvider`` / ``InProcessLockProvider``), the
conflict check at commit (:mod:`.conflicts`, ``SimpleConcurrentFileWritesConflictResolutionStrategy``),
and the options that choose among them (:mod:`.config`)."""
