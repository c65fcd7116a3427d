"""What the docs generators share: the import path, table cells, and the shape of a generated block.

Each generator (docs/gen_*.py) renders a part of a page from the code. The page calls it from a Cog block
(`<!-- [[[cog ... ]]] -->` up to `<!-- [[[end]]] -->`, HTML comments, so they show nowhere), and
`make docs-gen` writes what it renders into the committed page, between those lines;
tests/unit/test_generated_pages.py (and tests/infrastructure/test_permissions_page.py for the synthesized
permissions) fails when a committed page differs from what its generators write.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

# Before aws_cdk starts the jsii runtime (as app.py does): its Node 20 end-of-life banner names this variable.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
# The docs synthesis (gen_permissions.py) shows the templates, not CDK's deprecation notices.
os.environ.setdefault("JSII_DEPRECATED", "quiet")
ROOT = Path(__file__).resolve().parents[1]


def ensure_paths() -> None:
    """Put what `make` puts on PYTHONPATH on sys.path, for a bare `cog` or `python docs/gen_….py` too."""
    for path in (ROOT, ROOT / "lambdas"):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))


ensure_paths()


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


def block(text: str) -> str:
    """A generated block as its page holds it: blank lines around it, so Markdown reads it as blocks of its
    own, apart from the Cog lines (HTML comments) before and after it."""
    return f"\n{text}\n\n"


def run_on(text: str, indent: int = 0) -> str:
    """Generated lines that go on the paragraph before them, `indent`ed: in a list item, the Cog lines and
    these indented by 4 keep the item whole (Python-Markdown ends an item at a comment line indented less)."""
    return "".join(" " * indent + line + "\n" for line in text.splitlines())
