"""The package's shape: one folder per layer, and no module imports from a layer above its own.

The rule is written once, here, as LAYERS (docs/architecture.md explains each layer). Every module of
``hudi_log`` must belong to a layer, so a new module is placed on purpose; every import counts, also the
ones inside functions (lazy imports load the same code, only later).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "hudi_log"

#: Bottom to top, in the order data flows. A module may import from its own layer and the layers
#: before it, never from one after it. A name matches a module and everything under it, except
#: ``hudi_log`` itself, which is only the package's public face (hudi_log/__init__.py).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("shared", ("hudi_log.errors", "hudi_log.conditional_put", "hudi_log.paths", "hudi_log.parquet_io",
                "hudi_log.containment", "hudi_log.memory", "hudi_log_generated")),
    ("grammar", ("hudi_log.format.grammar", "hudi_log.format.source")),
    ("format content", ("hudi_log.format.content",)),
    ("format", ("hudi_log.format",)),
    ("log", ("hudi_log.log",)),
    ("table basics", ("hudi_log.table.properties", "hudi_log.table.errors", "hudi_log.table.markers",
                      "hudi_log.table.metadata_table", "hudi_log.table.cdc",
                      "hudi_log.table.workers")),
    ("timeline", ("hudi_log.table.timeline",)),
    ("concurrency", ("hudi_log.table.concurrency",)),
    ("schema and view", ("hudi_log.table.schema", "hudi_log.table.view", "hudi_log.table.metadata_files")),
    ("metadata table", ("hudi_log.table.metadata",)),
    ("read", ("hudi_log.table.read",)),
    ("services", ("hudi_log.table.services",)),
    ("write", ("hudi_log.table.write",)),
    ("table", ("hudi_log.table",)),
    ("spark", ("hudi_log.spark",)),
    ("cli", ("hudi_log.cli",)),
    ("applications", ("hudi_log.demo", "hudi_log.pipeline", "hudi_log")),
)


def layer_of(module: str) -> int | None:
    """The index in LAYERS of the most specific name that covers ``module``; None outside the project."""
    best, best_len = None, -1
    for i, (_, names) in enumerate(LAYERS):
        for name in names:
            covers = module == name or (name != "hudi_log" and module.startswith(name + "."))
            if covers and len(name) > best_len:
                best, best_len = i, len(name)
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, module) of every project module ``source`` imports, relative imports resolved."""
    found = []
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from pkg import mod` imports the module pkg.mod (and pkg itself)
            subs = [f"{target}.{a.name}" for a in node.names if is_module(f"{target}.{a.name}")]
            found += [(node.lineno, s) for s in subs] or [(node.lineno, target)]
    return [(line, m) for line, m in found if m.split(".")[0] in ("hudi_log", "hudi_log_generated")]


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    mine = layer_of(module)
    out = []
    for line, target in imported_modules(source, module, is_package):
        theirs = layer_of(target)
        if theirs is not None and mine is not None and theirs > mine:
            out.append(f"{module}:{line} imports {target} ({LAYERS[theirs][0]}, above {LAYERS[mine][0]})")
    return out


def project_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_belongs_to_a_layer():
    unplaced = [module_name(p) for p in project_modules() if layer_of(module_name(p)) is None]
    assert not unplaced, f"add these to a layer in LAYERS: {unplaced}"


def test_no_module_imports_from_a_layer_above_its_own():
    found = []
    for p in project_modules():
        found += violations(p.read_text(), module_name(p), p.name == "__init__.py")
    assert not found, "upward imports:\n" + "\n".join(found)


@pytest.mark.parametrize("source, module, bad", [
    ("from ..table.read.query import HudiTable\n", "hudi_log.log.writer", True),  # log -> table
    ("def f():\n    from ...spark import write\n", "hudi_log.table.write.client", True),  # lazy, still upward
    ("from .. import table\n", "hudi_log.format.block", True),  # the package `hudi_log.table`
    ("from ... import open_log\n", "hudi_log.table.read.scanner", True),  # the root facade
    ("import hudi_log.cli\n", "hudi_log.spark.sink", True),
    ("from ..services.rollback import rollback\n", "hudi_log.table.write.client", False),  # write -> services
    ("from ..format.content import deletes\n", "hudi_log.log.append_handle", False),
    ("from . import grammar\n", "hudi_log.format.block", False),
])
def test_the_rule_sees_upward_imports(source, module, bad):
    assert bool(violations(source, module)) == bad


def test_pyproject_ships_every_package():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib needs Python 3.11")
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {module_name(p) for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts}
    assert packages <= listed, f"pyproject.toml's packages lack {sorted(packages - listed)}"
