"""Fuzzing harness for hudi-log's reader: structure-aware mutations of real and generated log files.

Run it with ``python -m tools.fuzz --iterations N --seed S`` (see ``run.py``). The property it
checks is in ``harness.check``; the mutations are in ``harness.mutate``.
"""
