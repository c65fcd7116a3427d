"""The events the functions exchange or react to, defined once for the emitter, the parser and the rules."""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from kafka_lineage.model.names import GlueName, SourceKey

# Glue Schema Registry calls as CloudTrail reports them through EventBridge; schema-sync reacts to these.
GLUE_SOURCE = "aws.glue"
CLOUDTRAIL_DETAIL_TYPE = "AWS API Call via CloudTrail"
# DataZone's subscription grant events (subscription-grants; the stack's rule routes them).
DATAZONE_SOURCE = "aws.datazone"
GRANT_REQUESTED = "Subscription Grant Requested"
REVOKE_REQUESTED = "Subscription Grant Revoke Requested"
GLUE_EVENT_SOURCE = "glue.amazonaws.com"
GLUE_EVENT_NAMES = (
    "CreateSchema",
    "UpdateSchema",
    "RegisterSchemaVersion",
    "DeleteSchema",
    "DeleteSchemaVersions",
    "DeleteRegistry",
)
# lineage-emission announces schema drift on the default bus ("Schema Drift Detected"); schema-sync reacts
# to it, and the stack's rule and alarm match it (docs/schema-drift.md).
DRIFT_SOURCE = "kafka-lineage.lineage-emission"
DRIFT_DETAIL_TYPE = "Schema Drift Detected"


class TopicAssetChanged(BaseModel):
    """The detail of the event schema-sync puts after an asset's mapping is written (docs/invocation.md)."""

    SOURCE: ClassVar[str] = "kafka-lineage.schema-sync"
    DETAIL_TYPE: ClassVar[str] = "Topic Asset Changed"

    # Extra members are ignored so that a later emitter may add some without breaking an older parser.
    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    registry_name: SourceKey = Field(alias="registryName")  # `<account>:<registry>` for another account
    schema_arn: str = Field(alias="schemaArn")
    topic: GlueName
    asset_id: str | None = Field(default=None, alias="assetId")
    schema_version: int | None = Field(default=None, alias="schemaVersion")
    change: Literal["created", "revised", "deleted"]

    def to_detail(self) -> str:
        """The event's `Detail` string, compact JSON with the wire (camelCase) names."""
        return json.dumps(self.model_dump(by_alias=True, mode="json"), separators=(",", ":"))

    @classmethod
    def pattern(cls) -> dict[str, Any]:
        """The EventBridge pattern that matches these events."""
        return {"source": [cls.SOURCE], "detail-type": [cls.DETAIL_TYPE]}
