"""docs/aws-readings.md is generated from the stand-ins' switches (local/standins/readings.py) and what the
code relies on for each (local/standins/readings_cited.py): every switch has its row, every cited test
exists."""

from __future__ import annotations

import dataclasses
import re

import pytest

from local.standins import readings_cited
from local.standins.readings import Readings
from tests.unit.docs_generators import committed, load

gen = load("gen_readings")
gen_common = load("gen_common")
SWITCHES = [field.name for field in dataclasses.fields(Readings)]


def _rows() -> dict[str, str]:
    page = committed(gen.PAGE)
    return {
        match.group(1): line
        for line in page.splitlines()
        if (match := re.match(r"\| \[`(\w+)`\]\(#\1\) \|", line))
    }


def test_every_switch_is_a_row_with_its_question_default_reliance_and_tests():
    # When the page is built
    rows = _rows()
    docs = gen.docstrings()
    # then each switch of Readings has exactly one row, in order, and nothing else has one
    assert list(rows) == SWITCHES
    for field in dataclasses.fields(Readings):
        row = rows[field.name]
        # with the first sentence of its docstring, its default, what the code relies on and its tests
        assert gen_common.cell(gen.question(docs[field.name])) in row
        assert f"| {gen.default_text(field)} |" in row
        assert gen_common.cell(readings_cited.CITED[field.name].relies) in row
        for citation in readings_cited.CITED[field.name].tests:
            assert f"`{citation}`" in row


def test_every_switch_has_a_docstring_and_its_details_on_the_page():
    # Given the switches' docstrings, then every switch has one, and the page shows each below the table
    page = committed(gen.PAGE)
    assert set(gen.docstrings()) == set(SWITCHES)
    for name in SWITCHES:
        assert f"### `{name}` {{#{name}}}" in page


def test_the_delete_reading_says_one_delete_asset_and_unpublishes_only_when_refused():
    # Given the reading the code uses (one DeleteAsset; unpublish only when DataZone refuses it)
    assert Readings().delete_requires_unpublish is False
    row = _rows()["delete_requires_unpublish"]
    # then the page says so, and no longer that the sync unpublishes first
    assert "one DeleteAsset" in row
    assert "| `False` |" in row
    assert "Assumed yes: the sync unpublishes" not in committed(gen.PAGE)


def test_the_questions_are_whole_sentences():
    # Given every docstring's question, then none is cut at an abbreviation's full stop
    for doc in gen.docstrings().values():
        assert gen.question(doc).endswith(("?", ".")), doc
        assert not gen.question(doc).endswith(("e.g.", "i.e."))


def test_a_switch_without_a_citation_entry_fails_the_generation(monkeypatch: pytest.MonkeyPatch):
    # Given a switch readings_cited.py does not know
    cited = dict(readings_cited.CITED)
    del cited["search_lag_calls"]
    monkeypatch.setattr(gen, "CITED", cited)
    # When the page is generated, then it refuses, naming the switch
    with pytest.raises(ValueError, match="search_lag_calls: no entry"):
        gen.generated()


def test_a_citation_of_a_test_that_does_not_exist_fails_the_generation(monkeypatch: pytest.MonkeyPatch):
    # Given a citation of a test name the cited file does not define, and of a file that does not exist
    for citation, complaint in (
        ("unit/standins/test_datazone_search.py::test_nobody_wrote_this", "defines no such test"),
        ("unit/no_such_file.py", "does not exist"),
    ):
        cited = dict(readings_cited.CITED)
        cited["search_lag_calls"] = readings_cited.Cited("relies", (citation,))
        monkeypatch.setattr(gen, "CITED", cited)
        # When the page is generated, then it refuses
        with pytest.raises(ValueError, match=complaint):
            gen.generated()


def test_a_switch_no_test_names_is_shown_as_untested(monkeypatch: pytest.MonkeyPatch):
    # Given a switch without citations that no test file names
    monkeypatch.setattr(gen, "naming_files", lambda switch: [])
    cited = dict(readings_cited.CITED)
    cited["search_lag_calls"] = readings_cited.Cited("relies", ())
    monkeypatch.setattr(gen, "CITED", cited)
    # then its row says no test flips it
    assert gen.tests_text("search_lag_calls") == "**no test flips this switch**"
