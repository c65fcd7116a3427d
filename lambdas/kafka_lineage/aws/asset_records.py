"""The asset records' store: `AssetRecord`s in SSM under `{MAPPING_PATH}/assets/`, packed (packed_store)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from kafka_lineage.aws.pacing import Pacer
from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.state_layout import ASSETS, PRODUCTS, hash_group, read_entries, state_path

if TYPE_CHECKING:
    from mypy_boto3_ssm import SSMClient


class AssetRecordStore:
    """Load and save `AssetRecord`s; a record whose entry can't be read is skipped and reported."""

    def __init__(self, ssm: SSMClient, mapping_path: str, write_limiter: Pacer | None = None) -> None:
        self.store = PackedStore(
            ssm, state_path(mapping_path, ASSETS), write_limiter=write_limiter, nested=(PRODUCTS,)
        )
        self.unreadable: list[str] = []

    def load(self) -> dict[str, AssetRecord]:
        records, self.unreadable = read_entries(self.store.load(), AssetRecord.from_entry)
        return records

    def current(self) -> dict[str, AssetRecord]:
        """The records as last loaded or saved, without a call (what the data products are matched on)."""
        return read_entries(self.store.entries(), AssetRecord.from_entry)[0]

    def group_of(self, schema_arn: str) -> str:
        """The packed store's hash group of a schema's entry: a run that saves each group's changes at once
        writes each parameter once (see sync.plan.order_work)."""
        return hash_group(schema_arn, self.store.group_bits)

    def parameter_count(self) -> int:
        """The SSM parameters the records occupy, as last loaded or saved."""
        return self.store.parameter_count()

    def save(self, changes: Mapping[str, AssetRecord | None]) -> int:
        """Upsert or (None) remove records; returns the number of SSM writes made."""
        return self.store.save(
            {arn: (record.to_entry() if record is not None else None) for arn, record in changes.items()}
        )


class LiveAssetRecords:
    """lineage-emission's view of the asset records: without those whose schema is deleted and whose asset
    schema-sync holds for its subscribers (AssetRecord.held). Their topics are gone for lineage, which
    retracts their edges as for any deleted schema, while the asset stays for the subscriptions."""

    def __init__(self, store: AssetRecordStore) -> None:
        self.store = store

    @property
    def unreadable(self) -> list[str]:
        return self.store.unreadable

    def load(self) -> dict[str, AssetRecord]:
        return {arn: record for arn, record in self.store.load().items() if not record.held}
