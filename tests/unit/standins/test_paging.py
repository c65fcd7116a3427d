"""Page tokens on moto's paginator (local/standins/paging.py): offsets for most listings, "after this sort
key" for the listings that must survive removals between pages."""

from __future__ import annotations

import pytest

from local.standins import paging
from local.standins.errors import ServiceError, validation

NAMES = ["cdc$#.orders", "cdc-payments", "cdc_refunds", "__heartbeat", "x" * 255]


def walk(size: int, query: dict[str, str]) -> list[list[str]]:
    pages: list[list[str]] = []
    token: str | None = None
    while True:
        chosen, token = paging.page(NAMES, size, token, query, validation)
        pages.append(chosen)
        if token is None:
            return pages


def test_given_five_items_when_paged_by_two_then_three_pages_hold_them_in_order() -> None:
    assert walk(2, {"domainIdentifier": "dzd_1"}) == [NAMES[0:2], NAMES[2:4], NAMES[4:]]


@pytest.mark.parametrize("other", [{"domainIdentifier": "dzd_2"}, {}])
def test_given_a_token_when_used_with_another_query_then_the_services_error_refuses_it(
    other: dict[str, str],
) -> None:
    # Given the token of the first page of one query
    _, token = paging.page(NAMES, 2, None, {"domainIdentifier": "dzd_1"}, validation)

    # When it is used with another query
    with pytest.raises(ServiceError) as refused:
        paging.page(NAMES, 2, token, other, validation)

    # Then the service's own error answers, not moto's InvalidToken
    assert refused.value.code == "ValidationException"


def test_given_a_made_up_token_then_it_is_refused() -> None:
    with pytest.raises(ServiceError) as refused:
        paging.page(NAMES, 2, "garbage", {}, validation)

    assert refused.value.code == "ValidationException"


def test_given_a_listing_that_shrank_below_the_tokens_offset_then_the_token_is_refused() -> None:
    # Given the token of the third page
    _, token = paging.page(NAMES, 2, None, {}, validation)
    _, token = paging.page(NAMES, 2, token, {}, validation)

    # When the listing has lost three items before the third page is read
    with pytest.raises(ServiceError) as refused:
        paging.page(NAMES[:2], 2, token, {}, validation)

    # Then the token is refused with the service's error (the pessimistic reading; AWS is silent)
    assert refused.value.code == "ValidationException"


def test_given_the_next_pages_first_item_removed_when_paging_after_a_key_then_nothing_is_skipped() -> None:
    # Given the first page of five numbered items, two at a time
    items = list(range(1, 6))
    first, token = paging.page_after(items, 2, None, {"c": "arn"}, int, validation)

    # When the item the next page would start with is removed before it is read
    items.remove(3)
    second, last = paging.page_after(items, 2, token, {"c": "arn"}, int, validation)

    # Then the pages hold every remaining item once, and the second is the last
    assert (first, second, last) == ([1, 2], [4, 5], None)


def test_given_a_key_token_when_used_with_another_query_then_it_is_refused() -> None:
    _, token = paging.page_after([1, 2, 3], 1, None, {"c": "arn-1"}, int, validation)

    with pytest.raises(ServiceError):
        paging.page_after([1, 2, 3], 1, token, {"c": "arn-2"}, int, validation)
