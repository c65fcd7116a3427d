"""The stand-ins stay easy to change: small modules, and imports between them that never run in a circle."""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[3]
STANDINS = REPO / "local" / "standins"
MAX_LINES = 500


MODULES = sorted(STANDINS.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(STANDINS)))
def test_given_a_stand_in_module_then_it_is_under_the_size_bound(path: Path) -> None:
    # Given one module of the stand-ins / When its lines are counted
    lines = len(path.read_text(encoding="utf-8").splitlines())

    # Then it holds one concern, small enough to read whole
    assert lines <= MAX_LINES, f"{path.relative_to(REPO)} has {lines} lines; split it along a real seam"


def test_given_the_local_package_then_no_module_imports_one_that_imports_it_back() -> None:
    # Given every module under local/ and every import between them, TYPE_CHECKING blocks and imports
    # inside functions included (grimp, import-linter's graph: a circle through either still ties the
    # modules together for a reader)
    graph = grimp.build_graph("local")
    imports = {name: graph.find_modules_directly_imported_by(name) for name in graph.modules}

    # When the graph is walked depth first
    cycles: list[str] = []
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            cycles.append(" -> ".join([*trail[trail.index(name) :], name]))
            return
        if name in done:
            return
        for imported in sorted(imports[name]):
            visit(imported, [*trail, name])
        done.add(name)

    for name in sorted(imports):
        visit(name, [])

    # Then no walk came back to a module on its own path
    assert cycles == []
