"""What the docs generators share: the import path, table cells, and filling a page's marker lines.

Each generator (docs/gen_*.py, a mkdocs hook in mkdocs.yml) replaces marker lines of its pages with what it
renders from the code at build time; a page that lost its marker, or holds it twice, fails the build.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Before aws_cdk starts the jsii runtime (as app.py does): its Node 20 end-of-life banner names this variable.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
# The docs synthesis (gen_permissions.py) shows the templates, not CDK's deprecation notices.
os.environ.setdefault("JSII_DEPRECATED", "quiet")
ROOT = Path(__file__).resolve().parents[1]


def ensure_paths() -> None:
    """Put what `make` puts on PYTHONPATH on sys.path, for a bare `mkdocs build` too. Each generator calls it
    when it loads and when it renders: mkdocs restores sys.path after loading each hook."""
    for path in (ROOT, ROOT / "lambdas"):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))


ensure_paths()


@dataclass(frozen=True)
class Generated:
    """A marker line of `page` (docs-relative) and what replaces it."""

    page: str
    marker: str
    render: Callable[[], str]


def marker(name: str, generator: str) -> str:
    return f"<!-- generated: {name} (docs/{generator}) -->"


def cell(text: str) -> str:
    """One table cell: one line, pipes escaped, and `<...>` outside code spans shown, not read as HTML."""
    parts = " ".join(text.split()).replace("|", "\\|").split("`")
    for index in range(0, len(parts), 2):  # the even parts lie outside code spans
        parts[index] = parts[index].replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table; every cell goes through `cell`."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(text) for text in row) + " |" for row in rows]
    return "\n".join(lines)


def fill(markdown: str, page: str, generated: Sequence[Generated]) -> str:
    """Replace each marker of `page` with its rendering; a marker missing or repeated fails the build."""
    ensure_paths()
    for item in generated:
        if item.page != page:
            continue
        if markdown.count(item.marker) != 1:
            raise ValueError(f"docs/{page} must hold the marker line exactly once: {item.marker}")
        markdown = markdown.replace(item.marker, item.render())
    return markdown


def page_uri(page: Any) -> str:
    """The docs-relative path of a mkdocs Page."""
    return str(page.file.src_uri)
