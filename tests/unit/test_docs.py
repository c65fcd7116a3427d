"""The docs site cannot drift from the code: the configuration reference is generated from the settings
models (docs/gen_reference.py), and the events and payloads the pages show are ones the functions accept."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel, Field

from kafka_lineage.grants.requests import parse_request as parse_grant_request
from kafka_lineage.lineage.requests import parse_emit_event
from kafka_lineage.sync.requests import parse_sync_event

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EVENTS = ROOT / "tests" / "events"
SNIPPET = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$', re.M)
MANUAL = re.compile(r"""invoke "\$(SYNC|LINEAGE|GRANTS)" '(\{[^']*)'""")


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_reference", DOCS / "gen_reference.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_reference", module)
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


def _pages() -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(DOCS.glob("*.md"))}


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for argument in typing.get_args(annotation):
        yield from _models_in(argument)


def test_every_setting_has_a_description():
    # Given every settings model the reference shows, then each of its fields says what it is for
    assert gen.missing_descriptions() == []


def test_every_settings_model_nested_in_a_shown_one_has_its_own_table():
    # Given the models the reference shows, when a field's type is another settings model
    shown = {section.model for section in gen.all_sections()}
    nested = {
        (section.model.__name__, name, model.__name__)
        for section in gen.all_sections()
        for name, field in section.model.model_fields.items()
        for model in _models_in(field.annotation)
        if model not in shown
    }
    # then that model is shown too, so none of its keys is missed
    assert nested == set()


def test_a_nested_model_nobody_named_gets_a_table_of_its_own(monkeypatch: pytest.MonkeyPatch):
    # Given a shown model whose field is a model SECTIONS does not name
    class Inner(BaseModel):
        """An inner model."""

        depth: int = Field(default=1, description="How deep.")

    class Outer(BaseModel):
        inner: Inner = Field(default=Inner(), description="The inner part.")

    section = gen.Section("`outer`", "outer", Outer, "nowhere", "A test model.")
    monkeypatch.setattr(gen, "SECTIONS", (section,))
    # When the reference is generated, then the inner model has its table and the outer row links it
    reference = gen.reference()
    assert "### `Inner` {#inner}" in reference
    assert "| `inner` | [Inner](#inner) | its defaults |" in reference
    assert "| `depth` | integer | `1` |" in reference


def test_the_reference_shows_every_key_its_type_default_and_description():
    # When the reference is generated
    reference = gen.reference()
    # then every field of every shown model is a row naming its key, with the field's description
    for section in gen.SECTIONS:
        for name, field in section.fields():
            key = section.key(name, field)
            rows = [line for line in reference.splitlines() if line.startswith(f"| `{key}` |")]
            assert any(gen._cell(field.description) in row for row in rows), (section.title, key)
    # and declared defaults and constraints come from the models
    assert "| `datazoneRps` | number | `20.0` | &gt; 0; ≤ 1000 |" in reference
    assert '| `assetTypeRemovalPolicy` | `"retain"` or `"destroy"` | `"retain"` |' in reference
    assert "| `domainId` | string | required |" in reference


def test_a_setting_without_a_description_fails_the_docs_build(monkeypatch: pytest.MonkeyPatch):
    # Given a shown model with a field nobody described
    class Undescribed(BaseModel):
        described: int = Field(default=1, description="Has one.")
        bare: int = 2

    section = gen.Section("`undescribed`", "undescribed", Undescribed, "nowhere", "A test model.")
    monkeypatch.setattr(gen, "SECTIONS", (*gen.SECTIONS, section))
    # When the reference is generated, then it refuses, naming the field
    with pytest.raises(ValueError, match=r"Undescribed\.bare"):
        gen.reference()


def test_the_configuration_page_holds_the_generated_reference():
    # Given the page as committed
    page = (DOCS / gen.PAGE).read_text()
    # then it holds the generator's tables once, inside the Cog block that writes them (`make docs-gen`)
    assert page.count(gen.reference()) == 1
    assert "| `sources` |" in page
    start, end = (
        page.index("gen_reference as g"),
        page.index("<!-- [[[end]]] -->", page.index("gen_reference")),
    )
    assert start < page.index("| `sources` |") < end


def test_cdk_json_points_at_the_configuration_reference():
    readme = json.loads((ROOT / "cdk.json").read_text())["context"]["kafkaLineage"]["_readme"]
    assert "docs/configuration.md" in readme


def _included_fixtures() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for page, text in _pages().items():
        for name in SNIPPET.findall(text):
            found.setdefault(name, []).append(page)
    return found


def test_every_event_the_docs_show_is_a_fixture_the_functions_accept():
    # Given the event files the pages include (pymdownx.snippets, base path tests/events)
    included = {name: pages for name, pages in _included_fixtures().items() if (EVENTS / name).is_file()}
    assert "topic_asset_changed.json" in included
    assert "lineage_scheduled.json" in included
    for name, pages in included.items():
        event = json.loads((EVENTS / name).read_text())
        # then each is a tested fixture: a function's parser accepts it ...
        if name.startswith("drift_detail"):
            # ... or, for the bare drift detail, schema-sync accepts the event around it
            event = {**json.loads((EVENTS / "schema_drift_detected.json").read_text()), "detail": event}
        if name.startswith("access/"):
            # ... a grant event, which subscription-grants reads as one (its parser never raises)
            grants = parse_grant_request(event)
            assert grants.events, name
            assert not grants.malformed, f"{name}: {grants.malformed}"
            parsers: list[typing.Callable[[Any], Any]] = []
        else:
            parsers = (
                [parse_sync_event]
                if name.startswith(("glue_", "schema_drift", "drift_"))
                else [parse_emit_event]
            )
        for parse in parsers:
            parse(event)
        # ... and some test besides this one reads it
        users = [
            path
            for path in (ROOT / "tests").rglob("*.py")
            if path.name != Path(__file__).name and name.removesuffix(".json") in path.read_text()
        ]
        assert users, f"{name} is shown in {pages} but no test reads it"


def test_every_manual_payload_in_the_docs_is_accepted_by_its_function():
    # Given the payloads the pages pass to `invoke "$SYNC" '...'`, `"$LINEAGE"` and `"$GRANTS"`
    payloads = [match for text in _pages().values() for match in MANUAL.findall(text)]
    assert {function for function, _ in payloads} == {"SYNC", "LINEAGE", "GRANTS"}
    # then each parses, with the function's own request parser (subscription-grants reports, never raises)
    for function, payload in payloads:
        if function == "GRANTS":
            assert not parse_grant_request(json.loads(payload)).malformed, payload
        else:
            (parse_sync_event if function == "SYNC" else parse_emit_event)(json.loads(payload))


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_test_builds_the_docs_strictly():
    recipe = subprocess.run(
        ["make", "--dry-run", "--old-file=.venv/.installed", "test"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "mkdocs build --strict" in recipe


def test_angle_brackets_in_a_description_are_text_not_html():
    # Given a description naming a placeholder outside a code span, and one inside
    cell = gen._cell("e.g. s3tablescatalog/<table bucket>, or `<account>:<registry>`")
    # then the first is escaped and the code span kept as written
    assert cell == "e.g. s3tablescatalog/&lt;table bucket&gt;, or `<account>:<registry>`"


def test_the_readme_is_a_front_page_whose_links_lead_into_the_site():
    # Given the README
    readme = (ROOT / "README.md").read_text()
    # then it stays a front page with the two commands of the quick start
    assert len(readme.splitlines()) <= 200
    assert "make demo" in readme
    assert "make test" in readme
    # and every relative link it has names a file of the repository
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    relative = [target for target in targets if "://" not in target]
    assert relative
    assert [target for target in relative if not (ROOT / target).exists()] == []


def test_every_other_file_the_docs_include_is_a_tested_example():
    # Given the files the pages include that are not event fixtures
    others = {name for name in _included_fixtures() if not (EVENTS / name).is_file()}
    # then each is a file of examples/ (which the embedding tests synthesize), never an untested copy
    assert "examples/existing-app/app.py" in others
    assert [name for name in others if not name.startswith("examples/") or not (ROOT / name).is_file()] == []
