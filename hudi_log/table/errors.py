"""Errors of table writes. All derive from TableError (and so HudiLogError) and name the table."""

from __future__ import annotations

from .properties import TableError


class WriteError(TableError):
    """A write to a Hudi table failed; nothing of it is visible (its instant was rolled back)."""


class RecordKeyError(WriteError):
    """A record has no record key (null or empty key field) or lacks a key / partition column."""


class SchemaEvolutionError(WriteError):
    """The batch's schema does not evolve the table's compatibly (dropped or retyped column)."""


class RollbackError(WriteError):
    """An instant cannot be rolled back (unknown, completed, or not a write)."""
