"""The concurrency options of a write or table service, under Hudi's names and with Hudi's defaults
(``HoodieWriteConfig``, ``HoodieCleanConfig``, ``HoodieLockConfig``, ``HoodieHeartbeatConfig``).

* ``hoodie.write.concurrency.mode``: ``SINGLE_WRITER`` (default) or ``OPTIMISTIC_CONCURRENCY_CONTROL``;
  Hudi 1.x's ``NON_BLOCKING_CONCURRENCY_CONTROL`` (bucket-index MOR tables only) is refused.
* ``hoodie.cleaner.policy.failed.writes`` (1.x also spells it ``hoodie.clean.failed.writes.policy``):
  ``EAGER`` (default), ``LAZY`` or ``NEVER``. Under optimistic concurrency Java forces ``LAZY``
  (``autoAdjustConfigsForConcurrencyMode``), and so do we.
* ``hoodie.write.lock.provider``: ``FileSystemBasedLockProvider`` or ``InProcessLockProvider`` (the
  class's short or full name). Optimistic concurrency needs one; Java's default, ZooKeeper, is not
  offered here, so it must be named. A single writer may name one too: its services then take it.
* Heartbeats: ``hoodie.client.heartbeat.interval_in_ms`` (60000) and
  ``hoodie.client.heartbeat.tolerable.misses`` (2): a heartbeat older than interval × misses is expired.
* Lock waits: ``hoodie.write.lock.wait_time_ms`` (60000) per attempt, ``hoodie.write.lock.client.num_retries``
  (50) more attempts, ``hoodie.write.lock.client.wait_time_ms_between_retry`` (5000) between them;
  ``hoodie.write.lock.filesystem.path`` (default the table's ``.hoodie``) and
  ``hoodie.write.lock.filesystem.expire`` (minutes, 0 = never) for the file-system lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..errors import ConcurrencyConfigError

MODE = "hoodie.write.concurrency.mode"
FAILED_WRITES = "hoodie.cleaner.policy.failed.writes"
FAILED_WRITES_1X = "hoodie.clean.failed.writes.policy"
LOCK_PROVIDER = "hoodie.write.lock.provider"
HEARTBEAT_INTERVAL = "hoodie.client.heartbeat.interval_in_ms"
HEARTBEAT_MISSES = "hoodie.client.heartbeat.tolerable.misses"
LOCK_WAIT = "hoodie.write.lock.wait_time_ms"
LOCK_RETRIES = "hoodie.write.lock.client.num_retries"
LOCK_RETRY_WAIT = "hoodie.write.lock.client.wait_time_ms_between_retry"
LOCK_FS_PATH = "hoodie.write.lock.filesystem.path"
LOCK_FS_EXPIRE = "hoodie.write.lock.filesystem.expire"

SINGLE_WRITER = "SINGLE_WRITER"
OPTIMISTIC = "OPTIMISTIC_CONCURRENCY_CONTROL"
EAGER, LAZY, NEVER = "EAGER", "LAZY", "NEVER"

_LOCK_PACKAGE = "org.apache.hudi.client.transaction.lock."
FILE_SYSTEM_LOCK = _LOCK_PACKAGE + "FileSystemBasedLockProvider"
IN_PROCESS_LOCK = _LOCK_PACKAGE + "InProcessLockProvider"
LOCK_PROVIDERS = (FILE_SYSTEM_LOCK, IN_PROCESS_LOCK)


@dataclass(frozen=True)
class ConcurrencyConfig:
    mode: str = SINGLE_WRITER
    failed_writes: str = EAGER
    lock_provider: str | None = None
    heartbeat_interval_ms: int = 60_000
    heartbeat_misses: int = 2
    lock_wait_ms: int = 60_000
    lock_retries: int = 50
    lock_retry_wait_ms: int = 5_000
    lock_fs_path: str | None = None
    lock_fs_expire_minutes: float = 0.0

    @property
    def optimistic(self) -> bool:
        return self.mode == OPTIMISTIC

    @property
    def others_may_write(self) -> bool:
        """Another writer may be live beside this one: optimistic concurrency, or a lock provider named (a
        single writer names one only to share the table). Without either, Java's promise is one writer."""
        return self.optimistic or self.lock_provider is not None

    @property
    def heartbeat_timeout_s(self) -> float:
        """A heartbeat older than this is expired (Java: ``interval × tolerable misses``)."""
        return self.heartbeat_interval_ms * self.heartbeat_misses / 1000.0


def _int(options: Mapping, key: str, default: int, minimum: int) -> int:
    raw = options.get(key)
    if raw is None or raw == "":
        return default
    try:
        value = int(str(raw))
    except ValueError:
        raise ConcurrencyConfigError("<options>", f"{key}={raw!r} is not an integer") from None
    if value < minimum:
        raise ConcurrencyConfigError("<options>", f"{key}={value} is below {minimum}")
    return value


def concurrency_config(options: Mapping | None) -> ConcurrencyConfig:
    """The concurrency settings in ``options`` (Hudi's names), checked; an unsupported mode, policy or
    lock provider is refused before anything is written, naming the option."""
    opts = {str(k): str(v) for k, v in (options or {}).items()}
    mode = opts.get(MODE, SINGLE_WRITER).strip().upper()
    if mode not in (SINGLE_WRITER, OPTIMISTIC):
        raise ConcurrencyConfigError("<options>", f"{MODE}={opts[MODE]!r} is not supported here "
                                     f"(one of {SINGLE_WRITER}, {OPTIMISTIC})")
    policy = (opts.get(FAILED_WRITES) or opts.get(FAILED_WRITES_1X) or EAGER).strip().upper()
    if policy not in (EAGER, LAZY, NEVER):
        raise ConcurrencyConfigError("<options>", f"{FAILED_WRITES}={policy!r} is not one of EAGER, LAZY, NEVER")
    if mode == OPTIMISTIC:
        policy = LAZY  # Java's autoAdjustConfigsForConcurrencyMode: concurrent writers are not failed ones
    provider = opts.get(LOCK_PROVIDER, "").strip() or None
    if provider is not None:
        full = provider if "." in provider else _LOCK_PACKAGE + provider
        if full not in LOCK_PROVIDERS:
            raise ConcurrencyConfigError("<options>", f"{LOCK_PROVIDER}={provider!r} is not supported here "
                                         "(FileSystemBasedLockProvider or InProcessLockProvider)")
        provider = full
    elif mode == OPTIMISTIC:
        raise ConcurrencyConfigError("<options>", f"{MODE}={OPTIMISTIC} needs a lock: set {LOCK_PROVIDER} to "
                                     f"{FILE_SYSTEM_LOCK} (or InProcessLockProvider within one process)")
    try:
        expire = float(opts.get(LOCK_FS_EXPIRE) or 0)
    except ValueError:
        raise ConcurrencyConfigError("<options>", f"{LOCK_FS_EXPIRE}={opts[LOCK_FS_EXPIRE]!r} is not a number") \
            from None
    return ConcurrencyConfig(
        mode=mode, failed_writes=policy, lock_provider=provider,
        heartbeat_interval_ms=_int(opts, HEARTBEAT_INTERVAL, 60_000, 1),
        heartbeat_misses=_int(opts, HEARTBEAT_MISSES, 2, 1),
        lock_wait_ms=_int(opts, LOCK_WAIT, 60_000, 0),
        lock_retries=_int(opts, LOCK_RETRIES, 50, 0),
        lock_retry_wait_ms=_int(opts, LOCK_RETRY_WAIT, 5_000, 0),
        lock_fs_path=opts.get(LOCK_FS_PATH) or None,
        lock_fs_expire_minutes=expire,
    )
