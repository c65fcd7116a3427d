"""A packed store's entries are read by one rule: an entry that cannot be read is left out and listed."""

from __future__ import annotations

from kafka_lineage.drift.summary import load_summaries
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.state_layout import read_entries

ARN = "arn:aws:glue:eu-west-1:123456789012:schema/reg$#.-_/__debezium-heartbeat.dbserver1"


def test_an_asset_record_entry_missing_a_member_is_listed_and_the_others_are_read() -> None:
    # Given the entry of a record as stored, and one another version wrote without its members
    record = AssetRecord(
        registry_name="reg$#.-_",
        schema_name="__debezium-heartbeat.dbserver1",
        schema_arn=ARN,
        asset_id="a1",
        latest_version=3,
        data_format="AVRO",
        namespace="kafka://b-1.example:9098",
        updated_time="2026-01-01T00:00:00Z",
        created_time="2026-01-01T00:00:00Z",
        content_hash="h",
    )
    entries = {ARN: record.to_entry(), ARN + "x": {"r": "reg"}}
    # When they are read
    records, unreadable = read_entries(entries, AssetRecord.from_entry)
    # Then the whole one comes back as it was, and the broken one is named, not guessed
    assert records == {ARN: record}
    assert unreadable == [ARN + "x"]


def test_a_drift_summary_of_an_unknown_severity_is_listed() -> None:
    # Given a drift entry whose severity no version writes
    entries = {"reg/orders": {"s": "catastrophic"}}
    # When read / Then nothing is read and its key is listed
    assert load_summaries(entries) == ({}, ["reg/orders"])
