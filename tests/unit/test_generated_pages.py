"""Every docs generator (docs/gen_*.py) runs at build time: it is a hook of mkdocs.yml, and each marker line
it fills is in its page exactly once (a page that lost its marker would silently show stale prose)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.unit.docs_generators import DOCS, ROOT, load

GENERATORS = sorted(path.stem for path in DOCS.glob("gen_*.py") if path.stem != "gen_common")


def test_every_generator_is_a_hook_of_the_site():
    # Given mkdocs.yml's hooks (the list under `hooks:`)
    config = (ROOT / "mkdocs.yml").read_text()
    listed = re.search(r"^hooks:\n((?:  - .*\n)+)", config, re.M)
    assert listed is not None
    hooks = [line.removeprefix("  - ") for line in listed.group(1).splitlines()]
    # then every generator is one of them, and every hook is a generator
    assert sorted(Path(hook).stem for hook in hooks) == GENERATORS


@pytest.mark.parametrize("name", [name for name in GENERATORS if name != "gen_reference"])
def test_each_marker_is_in_its_page_once(name: str):
    # Given a generator's markers, then each page it fills holds its marker exactly once
    generated = load(name).GENERATED
    assert generated
    for item in generated:
        assert (DOCS / item.page).read_text().count(item.marker) == 1, (name, item.page)
