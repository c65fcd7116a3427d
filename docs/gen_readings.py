"""docs/aws-readings.md's table of readings, generated from the stand-ins' switches.

The page's Cog block writes it (`make docs-gen`). Every field of `local.standins.readings.Readings` is a row:
the switch, its question (the first sentence of its docstring), its default, what the code relies on and the
tests that flip it (`local.standins.readings_cited`), then every other test file that names the switch; below
the table, each switch's whole docstring (what AWS documents, and the readings). A switch without a citation
entry, an entry without a switch, or a cited test that does not exist fails `make docs-gen`
(tests/unit/test_readings_reference.py). `python docs/gen_readings.py` prints the page's generated part.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_common import ROOT, ensure_paths, table

ensure_paths()

from local.standins import readings as readings_module  # noqa: E402
from local.standins.readings import Readings  # noqa: E402
from local.standins.readings_cited import CITED  # noqa: E402

PAGE = "aws-readings.md"
TESTS = ROOT / "tests"
_QUESTION_END = re.compile(r"\?|(?<!e\.g)(?<!i\.e)\.(?=\s+[A-Z\"(])|\.$")


def docstrings() -> dict[str, str]:
    """Each field's docstring (the string literal after its annotated assignment), cleaned."""
    (cls,) = [
        node
        for node in ast.parse(Path(inspect.getfile(readings_module)).read_text()).body
        if isinstance(node, ast.ClassDef) and node.name == Readings.__name__
    ]
    found: dict[str, str] = {}
    for statement, following in zip(cls.body, cls.body[1:], strict=False):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            found[statement.target.id] = inspect.cleandoc(following.value.value)
    return found


def question(doc: str) -> str:
    """The docstring's first sentence: up to its first question mark, or its first full stop."""
    text = " ".join(doc.split())
    end = _QUESTION_END.search(text)
    return text[: end.end()] if end else text


@cache
def _test_sources() -> dict[str, str]:
    return {str(path.relative_to(TESTS)): path.read_text() for path in sorted(TESTS.rglob("*.py"))}


def check_citation(citation: str) -> None:
    """A cited test file exists under tests/, and a cited test name is defined in it."""
    path, _, name = citation.partition("::")
    source = _test_sources().get(path)
    if source is None:
        raise ValueError(f"readings_cited.py cites tests/{path}, which does not exist")
    if name and not re.search(rf"\bdef {re.escape(name)}\(", source):
        raise ValueError(f"readings_cited.py cites {name} in tests/{path}, which defines no such test")


def naming_files(switch: str) -> list[str]:
    """The test files that name the switch."""
    return [path for path, source in _test_sources().items() if re.search(rf"\b{switch}\b", source)]


def switches() -> list[dataclasses.Field[Any]]:
    """Readings' fields, refusing a switch without its docstring or citation entry (and an entry too many)."""
    fields = list(dataclasses.fields(Readings))
    names = {field.name for field in fields}
    docs = docstrings()
    problems = [f"{name}: no docstring" for name in sorted(names - set(docs))]
    problems += [
        f"{name}: no entry in local/standins/readings_cited.py" for name in sorted(names - set(CITED))
    ]
    problems += [f"{name}: cited, but Readings has no such switch" for name in sorted(set(CITED) - names)]
    if problems:
        raise ValueError("docs/aws-readings.md cannot be generated: " + "; ".join(problems))
    for name in names:
        for citation in CITED[name].tests:
            check_citation(citation)
    return fields


def tests_text(switch: str) -> str:
    cited = CITED[switch].tests
    cited_files = {citation.partition("::")[0] for citation in cited}
    others = [path for path in naming_files(switch) if path not in cited_files]
    parts = [", ".join(f"`{citation}`" for citation in cited)] if cited else []
    if others:
        parts.append("also naming it: " + ", ".join(f"`{path}`" for path in others))
    return "; ".join(parts) if parts else "**no test flips this switch**"


def default_text(field: dataclasses.Field[Any]) -> str:
    """The default as the switch is set: a string quoted, a number or a bool as Python writes it."""
    value = field.default
    return f'`"{value}"`' if isinstance(value, str) else f"`{value!r}`"


def readings_table() -> str:
    docs = docstrings()
    rows = [
        [
            f"[`{field.name}`](#{field.name})",
            question(docs[field.name]),
            default_text(field),
            CITED[field.name].relies,
            tests_text(field.name),
        ]
        for field in switches()
    ]
    return table(["switch", "question", "default", "what the code relies on", "tests (under `tests/`)"], rows)


def _markdown(doc: str) -> str:
    """A docstring as Markdown: a list gets the blank lines around it that Markdown needs."""
    lines: list[str] = []
    in_list = False
    for line in doc.splitlines():
        item, continued = line.startswith("- "), line.startswith("  ")
        if lines and lines[-1] and ((item and not in_list) or (in_list and not item and not continued)):
            lines.append("")  # before a list, and after one
        in_list = item or (in_list and continued)
        lines.append(line)
    return "\n".join(lines)


def details() -> str:
    docs = docstrings()
    sections = [
        f"### `{name}` {{#{name}}}\n\nDefault {default_text(field)}.\n\n{_markdown(docs[name])}"
        for field in switches()
        for name in (field.name,)
    ]
    return "\n\n".join(sections)


def generated() -> str:
    return (
        readings_table()
        + "\n\n## Each switch, as `readings.py` records it\n\n"
        + "What AWS documents, and what each value means (the switch's docstring).\n\n"
        + details()
    )


if __name__ == "__main__":
    print(generated())
