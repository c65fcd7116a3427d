"""docs/invocation.md's result samples are what the result types return: every member a result always has is
shown, and every member it has only sometimes is listed with its meaning."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from kafka_lineage.lineage.result import EmitResult
from kafka_lineage.sync.result import SyncResult
from tests.unit.docs_generators import committed, load

gen = load("gen_results")
BLOCK = re.compile(r"```json\n(\{\"dryRun\".*?)\n```", re.S)


def _samples() -> list[dict[str, Any]]:
    return [json.loads(block) for block in BLOCK.findall(committed(gen.PAGE))]


def test_the_page_shows_each_result_as_its_type_returns_it():
    # When invocation.md is built
    sync, lineage = _samples()
    # then each sample is valid JSON equal to what the result type returns for the generator's sample
    assert sync == gen.sync_sample().to_dict()
    assert lineage == gen.lineage_sample().to_dict()


@pytest.mark.parametrize(
    ("index", "empty", "named"),
    [
        (0, SyncResult(dry_run=False, trigger="schedule"), {"published", "held", "heldTotal"}),
        (1, EmitResult(dry_run=False), {"inactivePaths", "deliveryErrors"}),
    ],
    ids=["schema-sync", "lineage-emission"],
)
def test_every_member_a_result_always_has_is_in_its_sample(index: int, empty: Any, named: set[str]):
    # Given the members a result that did nothing still has
    always = set(empty.to_dict())
    assert named <= always
    # then the sample on the page has each of them, the ones the pages once missed included
    assert always - set(_samples()[index]) == set()


def test_every_occasional_member_is_listed_with_its_meaning():
    # When the page is built
    page = committed(gen.PAGE)
    # then each member only some results have is named with what it means (leaseLost among them)
    for sample, everything, meanings in (
        (gen.sync_sample, gen.sync_everything, gen.SYNC_OCCASIONAL),
        (gen.lineage_sample, gen.lineage_everything, gen.LINEAGE_OCCASIONAL),
    ):
        occasional = set(everything().to_dict()) - set(sample().to_dict())
        assert occasional
        for member in occasional:
            assert f"- `{member}`: {meanings[member]}" in page
    assert "- `leaseLost`:" in page


def test_a_new_occasional_member_without_a_meaning_fails_the_generation(monkeypatch: pytest.MonkeyPatch):
    # Given the lineage result gains a member the generator gives no meaning
    original = EmitResult.to_dict

    def to_dict(self: EmitResult) -> dict[str, Any]:
        return {**original(self), **({"newFlag": True} if self.dry_run else {})}

    monkeypatch.setattr(EmitResult, "to_dict", to_dict)
    # When the page's samples are generated, then it refuses, naming the member
    with pytest.raises(ValueError, match=r"EmitResult members without a meaning.*newFlag"):
        gen.lineage_block()
