"""One rule combines a value made of parts: each account's reads, two chunks' plans."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kafka_lineage.model.combine import combined
from kafka_lineage.model.consumers import ConsumerReads
from kafka_lineage.model.delivery import DeliveryReads


def test_each_accounts_answer_is_kept_in_order_and_a_flag_holds_only_when_every_account_says_so() -> None:
    # Given two accounts' delivery reads, the second of which could not list its channels
    first = DeliveryReads(unread=("channel:a",), errors=("one",))
    second = DeliveryReads(unread=("firehose:b$#.-_",), channels_ok=False, errors=("two",))
    # When they are combined
    whole = combined(DeliveryReads, [first, second])
    # Then the tuples run end to end, in the accounts' order, and the channels are not known
    assert whole == DeliveryReads(
        unread=("channel:a", "firehose:b$#.-_"), channels_ok=False, firehose_ok=True, errors=("one", "two")
    )


def test_counts_are_added() -> None:
    # Given two accounts' consumer-group reads, three and four pages each
    parts = [ConsumerReads(unread=("arn:1",), calls=3), ConsumerReads(calls=4)]
    # When combined / Then the pages add up
    assert combined(ConsumerReads, parts) == ConsumerReads(unread=("arn:1",), calls=7)


def test_no_parts_is_the_empty_answer() -> None:
    # Given no account to read / When combined / Then the answer is the defaults: nothing read, all known
    assert combined(DeliveryReads, []) == DeliveryReads()


@dataclass(frozen=True)
class _Named:
    name: str = ""


def test_a_field_that_does_not_combine_is_refused() -> None:
    # Given a value with a text field / When two of them are combined / Then nothing is guessed
    with pytest.raises(TypeError, match=r"_Named\.name"):
        combined(_Named, [_Named("a"), _Named("b")])
