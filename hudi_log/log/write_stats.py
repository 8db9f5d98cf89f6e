"""What one append handle wrote into a file group for one instant: the basis of the write stat
(``HoodieDeltaWriteStat``) that the commit metadata records for that file group."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .writer import AppendResult


@dataclass
class WriteStats:
    """What one append handle wrote: the basis of a commit's write stat for this file group."""

    file_id: str
    partition_path: str
    instant: str
    base_instant: str
    log_files: list[str] = field(default_factory=list)
    appends: list[AppendResult] = field(default_factory=list)
    num_writes: int = 0
    num_inserts: int = 0
    num_update_writes: int = 0
    num_deletes: int = 0
    total_write_bytes: int = 0
    total_log_blocks: int = 0
    total_rollback_blocks: int = 0
    data_blocks: int = 0
    delete_blocks: int = 0

    @property
    def path(self) -> Optional[str]:
        """The last log file, relative to the table base path."""
        if not self.log_files:
            return None
        return f"{self.partition_path}/{self.log_files[-1]}" if self.partition_path else self.log_files[-1]

    @property
    def log_version(self) -> Optional[int]:
        return self.appends[-1].log_file.version if self.appends else None

    @property
    def log_offset(self) -> Optional[int]:
        return self.appends[-1].start_offset if self.appends else None

    def hudi_write_stat(self, base_file: str = "") -> dict:
        """This file group's entry of ``partitionToWriteStats`` in Hudi's commit metadata."""
        return {
            "fileId": self.file_id,
            "path": self.path,
            "cdcStats": None,
            "prevCommit": self.base_instant,
            "numWrites": self.num_writes,
            "numDeletes": self.num_deletes,
            "numUpdateWrites": self.num_update_writes,
            "numInserts": self.num_inserts,
            "totalWriteBytes": self.total_write_bytes,
            "totalWriteErrors": 0,
            "tempPath": None,
            "partitionPath": self.partition_path,
            "totalLogRecords": 0,
            "totalLogFilesCompacted": 0,
            "totalLogSizeCompacted": 0,
            "totalUpdatedRecordsCompacted": 0,
            "totalLogBlocks": 0,
            "totalCorruptLogBlock": 0,
            "totalRollbackBlocks": 0,
            "fileSizeInBytes": self.total_write_bytes,
            "minEventTime": None,
            "maxEventTime": None,
            "logVersion": self.log_version,
            "logOffset": self.log_offset,
            "baseFile": base_file,
            "logFiles": list(self.log_files),
        }
