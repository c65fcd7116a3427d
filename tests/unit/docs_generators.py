"""Load a docs generator (docs/gen_*.py, a mkdocs hook, not a package module) for a test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def load(name: str) -> ModuleType:
    """docs/<name>.py as module `<name>` (once per test session)."""
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


class Page:
    """The shape of a mkdocs Page the hooks read (`page.file.src_uri`)."""

    def __init__(self, src_uri: str) -> None:
        self.file = type("File", (), {"src_uri": src_uri})()


def build(generator: ModuleType, page: str) -> str:
    """docs/<page> as the hook renders it at build time."""
    rendered: str = generator.on_page_markdown((DOCS / page).read_text(), Page(page))
    return rendered
