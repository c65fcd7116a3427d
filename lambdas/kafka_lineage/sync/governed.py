"""Governed domains, applied: deletions held while subscribers keep a listing, and publishes a domain rule
refuses (docs/governed-domains.md). Each function takes the catalog port and one
action, and answers what happened as values the result reports.

- A deletion is one DeleteAsset (DataZone deletes the listing with the asset). While the listing has approved
  subscriptions DataZone refuses it: the deletion is *held*. The first time, the asset is revised to show
  its schema was deleted (schema form `schema_status` DELETED, a description saying why it stays) and the
  revision is published, so subscribers see it; the asset record stays, marked held, and later runs retry
  (asking ListSubscriptions first) until none remains. Nothing here revokes or cancels a subscription.
- A publish a domain rule refuses leaves the asset created (or revised); its record is marked unpublished,
  so the next run publishes it without creating anything again, and the schema's failure names the rule.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import AssetType, CatalogAsset
from kafka_lineage.model.failures import PublishRefused, publish_refusal
from kafka_lineage.sync import plan
from kafka_lineage.sync.desired import content_digest, held_content
from kafka_lineage.sync.ports import AssetCatalog


class Tokens(Protocol):
    """The clientTokens of the writes made here (sync.apply.Tokens builds them, as every other)."""

    def revise(self, asset_id: str, from_revision: str, content_hash: str) -> str: ...

    def publish(self, asset: CatalogAsset) -> str: ...

    def unpublish(self, asset_id: str) -> str: ...


@dataclass(frozen=True)
class HeldDeletion:
    """A deletion held for subscriptions (the result's `held` entry)."""

    schema_arn: str
    asset_id: str
    subscriptions: int
    registry_name: str = ""

    def describe(self) -> dict[str, Any]:
        return {
            "schemaArn": self.schema_arn,
            "assetId": self.asset_id,
            "reason": "subscribed",
            "subscriptions": self.subscriptions,
        }


@dataclass(frozen=True)
class RefusedPublish:
    """A publish a domain rule refused: the asset stays created and unpublished (a `failed` entry)."""

    schema_arn: str
    registry_name: str
    asset_id: str
    rules: tuple[str, ...]
    message: str

    def error(self) -> str:
        return (
            f"{publish_refusal(self.rules)}: {self.message}; asset {self.asset_id} stays unpublished, "
            "the next run publishes it"
        )

    def describe(self) -> dict[str, Any]:
        return {
            "schemaArn": self.schema_arn,
            "registryName": self.registry_name,
            "assetId": self.asset_id,
            "rules": list(self.rules),
            "error": self.error(),
        }


@dataclass(frozen=True)
class Deleted:
    """What a Delete came to: `record` the asset record to keep (None: remove it), `change` to announce."""

    record: AssetRecord | None
    change: Literal["revised", "deleted", ""]
    held: HeldDeletion | None = None
    warning: str | None = None


def delete(catalog: AssetCatalog, action: plan.Delete, asset_type: AssetType, tokens: Tokens) -> Deleted:
    """One DeleteAsset; held while subscribed (revised once to show its schema deleted)."""
    deletion = catalog.delete_asset(
        action.asset_id, tokens.unpublish(action.asset_id), subscribed=action.was_held
    )
    if not deletion.held:
        return Deleted(None, "deleted")
    held = HeldDeletion(action.schema_arn, action.asset_id, deletion.subscriptions, action.registry_name)
    record = action.record
    if record is None:
        # An orphan (no record): nothing to keep; the next verify run finds it again and retries.
        return Deleted(None, "", held)
    if record.held:
        # Already revised to show its schema deleted: only the count moves.
        return Deleted(replace(record, held=deletion.subscriptions), "", held)
    content = held_content(
        catalog.asset_content(action.asset_id), asset_type, record.registry_name, deletion.subscriptions
    )
    content_hash = content_digest(asset_type, content)
    revised = catalog.revise_asset(
        action.asset_id,
        content,
        asset_type,
        tokens.revise(action.asset_id, record.asset_revision or record.content_hash, content_hash),
    )
    warning = None
    try:
        catalog.publish(revised.asset_id, revised.revision, tokens.publish(revised))
    except PublishRefused as refused:
        warning = (
            f"held asset revised to show its schema deleted, but its listing was not refreshed: {refused}"
        )
    kept = replace(
        record,
        held=deletion.subscriptions,
        asset_revision=revised.revision,
        content_hash=content_hash,
        unpublished=False,
    )
    return Deleted(kept, "revised", held, warning)


def publish(
    catalog: AssetCatalog,
    action: plan.Create | plan.Revise | plan.Publish,
    asset: CatalogAsset,
    tokens: Tokens,
) -> RefusedPublish | None:
    """Publish the asset's revision; a rule's refusal is answered (the asset stays), not raised."""
    try:
        catalog.publish(asset.asset_id, asset.revision, tokens.publish(asset))
    except PublishRefused as refused:
        return RefusedPublish(
            action.schema_arn, action.registry_name, asset.asset_id, refused.rules, refused.message
        )
    return None
