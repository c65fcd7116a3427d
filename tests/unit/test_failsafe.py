"""The mass-removal fail-safe shared by schema-sync's deletions and lineage-emission's retractions."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kafka_lineage.failsafe import Ledger, Verdict, screen


@dataclass(frozen=True)
class Removal:
    group: str
    name: str
    confirmed: bool = False


def removals(group: str, count: int, confirmed: bool = False) -> list[Removal]:
    return [Removal(group, f"{group}-{i}", confirmed) for i in range(count)]


def run(
    items: list[Removal], totals: dict[str, int], limit: float = 0.5, allow: bool = False
) -> Verdict[Removal]:
    return screen(
        items,
        totals=totals,
        limit=limit,
        allow=allow,
        group=lambda r: r.group,
        confirmed=lambda r: r.confirmed,
    )


def test_given_a_share_at_or_below_the_limit_when_screened_then_every_removal_passes() -> None:
    verdict = run(removals("cdc", 2), {"cdc": 4})

    assert len(verdict.kept) == 2
    assert verdict.held == ()


def test_given_a_share_above_the_limit_when_screened_then_all_of_that_groups_inferred_removals_are_held() -> (
    None
):
    confirmed = Removal("cdc", "by-event", confirmed=True)
    items = [*removals("cdc", 3), confirmed, *removals("other", 1)]

    verdict = run(items, {"cdc": 4, "other": 10})

    assert set(verdict.kept) == {confirmed, Removal("other", "other-0")}
    assert [held.group for held in verdict.held] == ["cdc"]
    assert verdict.held[0].removed == 3
    assert "3 of 4" in verdict.held[0].reason()
    assert "allowMassDelete" in verdict.held[0].reason()


def test_given_the_override_or_an_unknown_total_when_screened_then_override_passes_and_unknown_holds() -> (
    None
):
    assert len(run(removals("cdc", 3), {"cdc": 3}, allow=True).kept) == 3
    # nothing known of the group: every inferred removal is the whole group
    assert run(removals("cdc", 1), {}).held_items == tuple(removals("cdc", 1))


def test_given_batches_when_screened_by_a_ledger_then_the_verdict_is_that_of_all_at_once() -> None:
    ledger = Ledger.start({"cdc": 10}, 0.5)

    first, ledger = ledger.screen(
        removals("cdc", 4), group=lambda r: r.group, confirmed=lambda r: r.confirmed
    )
    second, ledger = ledger.screen(
        [Removal("cdc", "late-1"), Removal("cdc", "late-2")],
        group=lambda r: r.group,
        confirmed=lambda r: False,
    )
    third, _ = ledger.screen([Removal("cdc", "late-3")], group=lambda r: r.group, confirmed=lambda r: False)

    assert len(first.kept) == 4
    assert second.kept == ()
    assert second.held[0].removed == 6
    assert third.kept == ()  # a held group stays held for the rest of the run


@pytest.mark.parametrize("limit", [0, 1.5])
def test_given_a_limit_outside_a_share_when_started_then_it_is_refused(limit: float) -> None:
    with pytest.raises(ValueError, match="share"):
        Ledger.start({}, limit)
