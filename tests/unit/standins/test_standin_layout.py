"""The stand-ins stay easy to change: small modules, and imports between them that never run in a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
STANDINS = REPO / "local" / "standins"
MAX_LINES = 500


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_level_imports(path: Path) -> set[str]:
    """Stand-in modules this one imports when it loads (not inside functions or TYPE_CHECKING blocks)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("local.standins.")}


MODULES = sorted(STANDINS.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(STANDINS)))
def test_given_a_stand_in_module_then_it_is_under_the_size_bound(path: Path) -> None:
    # Given one module of the stand-ins / When its lines are counted
    lines = len(path.read_text(encoding="utf-8").splitlines())

    # Then it holds one concern, small enough to read whole
    assert lines <= MAX_LINES, f"{path.relative_to(REPO)} has {lines} lines; split it along a real seam"


@pytest.mark.parametrize("package", ["datazone", "smithy"])
def test_given_a_split_stand_in_then_its_modules_import_each_other_without_a_cycle(package: str) -> None:
    # Given the modules of one stand-in package and the package modules each imports at load time
    root = STANDINS / package
    modules = {module_name(path): path for path in root.glob("*.py") if path.name != "__init__.py"}
    graph = {name: module_level_imports(path) & set(modules) for name, path in modules.items()}

    # When the import graph is walked
    order: list[str] = []
    visiting: set[str] = set()

    def visit(name: str, trail: tuple[str, ...]) -> None:
        assert name not in visiting, f"import cycle: {' -> '.join((*trail, name))}"
        if name in order:
            return
        visiting.add(name)
        for imported in sorted(graph[name]):
            visit(imported, (*trail, name))
        visiting.discard(name)
        order.append(name)

    for name in sorted(graph):
        visit(name, ())

    # Then every module was reached and none imports one that (in)directly imports it
    assert sorted(order) == sorted(modules)
