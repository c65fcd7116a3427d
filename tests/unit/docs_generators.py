"""Load a docs generator (docs/gen_*.py, a script the pages' Cog blocks import, not a package module) for a
test, and check committed pages against what their Cog blocks write (what `make docs-gen` runs)."""

from __future__ import annotations

import importlib.util
import io
import re
import sys
from pathlib import Path
from types import ModuleType

from cogapp import Cog  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# The opening line of a Cog block, and the generators it imports (`import gen_common as d, gen_x as g; …`).
COG_BLOCK = re.compile(r"^.*\[\[\[cog (.*?) \]\]\].*$", re.M)
GENERATOR = re.compile(r"\bgen_\w+")
# The page whose generator synthesizes the stacks: checked in tests/infrastructure (test_permissions_page.py).
SYNTHESIZED = ("permissions.md",)


def load(name: str) -> ModuleType:
    """docs/<name>.py as module `<name>` (once per test session; the Cog blocks import the same module)."""
    if name in sys.modules:
        return sys.modules[name]
    if str(DOCS) not in sys.path:
        sys.path.insert(0, str(DOCS))
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def generated_pages() -> dict[str, list[str]]:
    """Each docs page that holds Cog blocks, with the generators its blocks import, in order."""
    found: dict[str, list[str]] = {}
    for path in sorted(DOCS.glob("*.md")):
        blocks = COG_BLOCK.findall(path.read_text())
        if blocks:
            found[path.name] = [name for code in blocks for name in GENERATOR.findall(code)]
    return found


def committed(page: str) -> str:
    """docs/<page> as committed (what GitHub and an editor show)."""
    return (DOCS / page).read_text()


def stale(page: str) -> str:
    """How the committed docs/<page> differs from what its Cog blocks write now (`cog --check --diff`, the
    check of `make docs-gen`, run in this process): empty when it does not."""
    out = io.StringIO()
    cog = Cog()
    cog.set_output(stdout=out, stderr=out)
    status = cog.main(["cog", "--check", "--diff", "-U", "--verbosity=1", "-I", str(DOCS), str(DOCS / page)])
    assert status in (0, 5), out.getvalue()  # 5: the check failed; any other: a generator failed
    return out.getvalue() if status else ""
