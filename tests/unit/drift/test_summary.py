"""The drift summary lineage keeps for schema-sync: its SSM entry round-trips and rejects nonsense."""

import pytest

from kafka_lineage.drift import DriftSummary


def test_given_a_summary_when_it_round_trips_through_its_entry_then_nothing_is_lost() -> None:
    # Given
    summary = DriftSummary(1, 2, "breaking", ("lake/customers",), 1, 3, "ab" * 16, "2026-11-30T10:00:00Z")
    # When
    again = DriftSummary.from_entry(summary.to_entry())
    # Then
    assert again == summary


def test_given_an_entry_with_an_unknown_severity_when_read_then_it_is_refused() -> None:
    # Given
    entry = DriftSummary(1, 2, "info", (), 0, 1, "x", "2026-11-30T10:00:00Z").to_entry() | {"s": "fatal"}
    # When / Then
    with pytest.raises(ValueError, match="fatal"):
        DriftSummary.from_entry(entry)
