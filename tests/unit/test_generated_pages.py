"""The generated parts of the docs pages are committed: each page's Cog blocks (`<!-- [[[cog ... ]]] -->`)
call a docs generator (docs/gen_*.py), `make docs-gen` writes what it renders into the page, and these tests
fail while a committed page differs from that (the synthesized permissions page: tests/infrastructure)."""

from __future__ import annotations

import re

import pytest

from tests.unit.docs_generators import DOCS, ROOT, SYNTHESIZED, generated_pages, stale

GENERATORS = sorted(path.stem for path in DOCS.glob("gen_*.py") if path.stem != "gen_common")
PAGES = generated_pages()


def test_every_generator_writes_into_a_page():
    # Given the pages' Cog blocks, then every generator is called by one, and every block calls a generator
    called = {name for names in PAGES.values() for name in names}
    assert sorted(called - {"gen_common"}) == GENERATORS
    assert set(PAGES) >= {"configuration.md", "deploy.md", "operate.md", "invocation.md", "aws-readings.md"}
    assert set(SYNTHESIZED) <= set(PAGES)


def test_make_docs_gen_rewrites_every_page_and_the_site_runs_no_generator():
    # Given the Makefile and the site's configuration
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^docs-gen:.*\n\t(.*)$", makefile, re.M)
    assert recipe is not None
    # then `make docs-gen` rewrites every page in place, and mkdocs builds the committed pages as they are
    assert "$(DOCS_GEN) -r docs/*.md" in recipe.group(1)
    assert "hooks:" not in (ROOT / "mkdocs.yml").read_text()


@pytest.mark.parametrize("page", sorted(set(PAGES) - set(SYNTHESIZED)))
def test_each_committed_page_is_what_its_generators_write(page: str):
    # Given a committed page with Cog blocks, when its blocks run again, then nothing changes
    diff = stale(page)
    if diff:
        pytest.fail(f"docs/{page} is stale: run `make docs-gen` and commit it\n{diff}")
