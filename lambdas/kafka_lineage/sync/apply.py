"""Carry out one schema-sync action: one action in, one frozen `Applied` out (the twin of lineage/apply.py).

Every write is idempotent by construction, so any run may be retried, crash, or overlap another:
- CreateAsset carries a clientToken derived from the schema ARN, its CreatedTime and the content's hash (a
  retry with other content is another request: a conflict, then an adoption, never a replay of the first);
  a conflict on the external identifier (the asset exists but the asset records lost it) adopts that asset;
- revisions and listings carry tokens derived from the asset id and the revision they start from;
- a delete of something already gone is a success.
`Tokens` builds every one of those tokens; nothing else does.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any, Literal

from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import AssetType, CatalogAsset
from kafka_lineage.model.failures import AssetConflict, AssetGone
from kafka_lineage.observability import logger
from kafka_lineage.sync import governed, plan
from kafka_lineage.sync.governed import HeldDeletion, RefusedPublish
from kafka_lineage.sync.ports import AssetCatalog

Change = Literal["created", "revised", "deleted", ""]


def client_token(*parts: Any) -> str:
    """A deterministic idempotency token: the same write, retried by anyone, is the same request."""
    return hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).hexdigest()


@dataclass(frozen=True)
class Tokens:
    """The clientToken of each DataZone write schema-sync makes in `domain`: what the write starts from and
    what it writes, so that a retry is the same request and any other write another one."""

    domain: str

    def create(self, action: plan.Create | plan.Revise, replacing: str | None = None) -> str:
        """A schema's asset; `replacing` the asset id of one deleted behind our back (a token of its own, or
        DataZone would replay the create that made the deleted asset)."""
        parts: list[Any] = [action.schema_arn, action.new_record.created_time, action.desired.content_hash]
        return self._token("create", *parts, *([] if replacing is None else [replacing]))

    def revise(self, asset_id: str, from_revision: str, content_hash: str) -> str:
        return self._token("revise", asset_id, from_revision, content_hash)

    def publish(self, asset: CatalogAsset) -> str:
        return self._token("publish", asset.asset_id, asset.revision)

    def unpublish(self, asset_id: str) -> str:
        return self._token("unpublish", asset_id)

    def _token(self, kind: str, *parts: Any) -> str:
        return client_token(kind, self.domain, *parts)


@dataclass(frozen=True)
class Applied:
    """What one action did: the asset record after it (None: removed), the change it announces (empty for a
    refresh of the record alone), and whether it adopted an asset the records did not know."""

    action: plan.Action
    record: AssetRecord | None
    change: Change = ""
    adopted: bool = False
    # A deletion held while subscribers keep the listing (not a failure), or a publish a domain rule refused
    # (a failure; the asset stays created and unpublished): sync.governed.
    held: HeldDeletion | None = None
    refused: RefusedPublish | None = None
    warning: str = ""  # what the write could not do as asked (reported by the run, not by the worker)

    def event_detail(self) -> dict[str, Any] | None:
        """The "Topic Asset Changed" detail this change announces (None: nothing to announce)."""
        if not self.change:
            return None
        action = self.action
        source = self.record or getattr(action, "record", None)
        return {
            "registryName": action.registry_name,
            "schemaArn": action.schema_arn,
            "topic": action.topic,
            "assetId": (source.asset_id if source else getattr(action, "asset_id", "")) or "",
            "schemaVersion": source.latest_version if source else 0,
            "change": self.change,
        }


class Applier:
    """Applies actions to the catalog of one run: one asset type (`type_name`, as configured), one domain's
    tokens. Thread-safe (it keeps no state of its own): what a write could not do as asked is in the
    `Applied` it answers."""

    def __init__(
        self,
        catalog: AssetCatalog,
        asset_type: AssetType,
        type_name: str,
        domain_id: str,
    ) -> None:
        self.catalog = catalog
        self.asset_type = asset_type
        self.type_name = type_name
        self.tokens = Tokens(domain_id)

    def apply(self, action: plan.Action) -> Applied:
        if isinstance(action, plan.Touch):
            return Applied(action, action.new_record)
        if isinstance(action, plan.Delete):
            # One DeleteAsset (its listing goes with it); held while subscribed.
            deleted = governed.delete(self.catalog, action, self.asset_type, self.tokens)
            return Applied(
                action, deleted.record, deleted.change, held=deleted.held, warning=deleted.warning or ""
            )
        if isinstance(action, plan.Publish):
            # Created by an earlier run whose publish a domain rule refused: publish it, create nothing.
            record = action.new_record
            listed = CatalogAsset(record.asset_id, record.schema_arn, record.asset_revision)
            refused = governed.publish(self.catalog, action, listed, self.tokens)
            return Applied(action, replace(record, unpublished=refused is not None), refused=refused)
        if isinstance(action, plan.Revise):
            asset, change, adopted = self._revise(action)
        else:
            asset, adopted = self._create(action, self.tokens.create(action))
            change = "revised" if adopted else "created"
        refused = governed.publish(self.catalog, action, asset, self.tokens)
        record = replace(
            action.new_record,
            asset_id=asset.asset_id,
            asset_revision=asset.revision,
            unpublished=refused is not None,
        )
        return Applied(action, record, change, adopted, refused=refused, warning=asset.note or "")

    def _revise(self, action: plan.Revise) -> tuple[CatalogAsset, Change, bool]:
        record = action.record
        token = self.tokens.revise(
            record.asset_id, record.asset_revision or record.content_hash, action.desired.content_hash
        )
        try:
            asset = self.catalog.revise_asset(record.asset_id, action.desired.content, self.asset_type, token)
        except AssetGone:
            # Deleted behind our back: create anew.
            asset, adopted = self._create(action, self.tokens.create(action, replacing=record.asset_id))
            return asset, "created", adopted
        return asset, "revised", False

    def _create(self, action: plan.Create | plan.Revise, token: str) -> tuple[CatalogAsset, bool]:
        """The asset, and whether it was adopted: one with this external identifier exists already (an
        earlier run created it and the asset records lost it), so it gets the desired content instead."""
        catalog = self.catalog
        content = action.desired.content
        try:
            return catalog.create_asset(action.schema_arn, content, self.asset_type, token), False
        except AssetConflict as conflict:
            asset_id = conflict.asset_id
            if asset_id is None:
                found = catalog.find_by_external_id(action.schema_arn, self.type_name)
                if found is None:
                    raise
                asset_id = found.asset_id
        current = catalog.get_asset(asset_id)
        if current is None:
            raise AssetGone(asset_id)
        logger.info(
            "adopting an asset the mapping did not know",
            extra={"assetId": asset_id, "schemaArn": action.schema_arn},
        )
        token = self.tokens.revise(asset_id, current.revision, action.desired.content_hash)
        return catalog.revise_asset(asset_id, content, self.asset_type, token), True
