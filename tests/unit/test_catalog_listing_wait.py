"""Catalog.unpublish's bounded wait for the listing to be withdrawn: however the wait was spent before the
change was accepted (a slow call, a busy machine), the listing is looked at once before giving up."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_lineage.aws import catalog
from kafka_lineage.aws.catalog import Catalog
from kafka_lineage.model.failures import ListingBusy
from tests.unit.fake_clients import FakeClient


class ListingDoubles(FakeClient):
    """UNPUBLISH accepted with the listing still ACTIVE; GetListing answers the statuses given, in turn."""

    SERVICE = "datazone"

    def __init__(self, looks: list[str]) -> None:
        self.looks = looks
        self.get_listing_calls = 0

    def create_listing_change_set(self, **request: Any) -> dict[str, Any]:
        return {"listingId": "listing-1", "status": "ACTIVE", "listingRevision": "2"}

    def get_listing(self, **request: Any) -> dict[str, Any]:
        self.get_listing_calls += 1
        return {"id": "listing-1", "status": self.looks.pop(0)}


def spent_wait_catalog(client: ListingDoubles, monkeypatch: pytest.MonkeyPatch) -> Catalog:
    """A catalog whose listing wait is over before it starts (0 s to wait, pauses never slept)."""
    monkeypatch.setattr(catalog, "LISTING_FIRST_PAUSE_SECONDS", 0.01)
    return Catalog(client, "dzd_1", "project1", listing_wait_seconds=0.0, sleep=lambda _: None)


def test_an_unpublish_accepted_after_the_wait_ran_out_looks_once_and_is_done_if_withdrawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a wait already spent, and a listing withdrawn by the first look
    client = ListingDoubles(["INACTIVE"])
    # When the asset is unpublished
    spent_wait_catalog(client, monkeypatch).unpublish("asset-1", "token-1")
    # Then one look found it withdrawn: no ListingBusy
    assert client.get_listing_calls == 1


def test_an_unpublish_still_active_at_that_one_look_is_busy_for_the_next_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a wait already spent, and a listing still active at the first look
    client = ListingDoubles(["ACTIVE", "INACTIVE"])
    # When the asset is unpublished
    with pytest.raises(ListingBusy, match="still ACTIVE"):
        spent_wait_catalog(client, monkeypatch).unpublish("asset-1", "token-1")
    # Then it gave up after that one look, leaving the rest to the next run
    assert client.get_listing_calls == 1
