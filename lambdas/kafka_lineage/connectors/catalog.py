"""Which Glue catalog an Iceberg sink writes to, from its configuration alone: the account's root catalog,
a federated catalog below it (S3 Tables' `s3tablescatalog/<table bucket>`), or somewhere lineage does not
read (another account, another Region, a catalog that is not Glue). Pure.

The sink's catalog properties are Iceberg's, prefixed `iceberg.catalog.`:
- `catalog-impl` org.apache.iceberg.aws.glue.GlueCatalog, or `type` glue: Glue. `glue.id` is Iceberg's
  GlueCatalog catalog id, passed to Glue as CatalogId: an account (`111122223333`), or an account and a
  federated catalog (`111122223333:s3tablescatalog/<bucket>`, as the S3 Tables guide configures Spark);
- `type` rest against an AWS endpoint (Iceberg REST): Glue's (`https://glue.<region>.amazonaws.com/iceberg`,
  `warehouse` the catalog id, e.g. `<account>:s3tablescatalog/<bucket>`), or S3 Tables' own
  (`https://s3tables.<region>.amazonaws.com/iceberg`, `warehouse` the table bucket ARN, whose tables Glue
  shows in `s3tablescatalog/<bucket>`). Any other REST catalog is not Glue;
- `client.region` (Iceberg's AWS client property), or the REST endpoint's Region: a catalog in another
  Region than the connector's holds other tables than the same-named ones lineage reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kafka_lineage.model.names import FEDERATED_CATALOG_NAME

GLUE_CATALOG_IMPLS = frozenset({"org.apache.iceberg.aws.glue.GlueCatalog"})
REST_ENDPOINT = re.compile(
    r"https://(?P<service>glue|s3tables)\.(?P<region>[a-z0-9-]+)\.amazonaws\.com(?:\.cn)?/iceberg/?"
)
TABLE_BUCKET_ARN = re.compile(
    r"arn:[a-z-]+:s3tables:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):bucket/(?P<name>[a-z0-9-]+)"
)
CATALOG_ID = re.compile(r"(?P<account>\d{12})(?::(?P<catalog>.+))?")


@dataclass(frozen=True)
class SinkCatalog:
    """`glue_catalog` "" for the root catalog; `elsewhere` why the tables are not those lineage reads."""

    glue_catalog: str = ""
    elsewhere: str = ""


def sink_catalog(config: Mapping[str, str], own_account: str, own_region: str) -> SinkCatalog:
    impl = config.get("iceberg.catalog.catalog-impl", "").strip()
    kind = config.get("iceberg.catalog.type", "").strip().lower()
    region = config.get("iceberg.catalog.client.region", "").strip()
    if impl in GLUE_CATALOG_IMPLS or (not impl and kind == "glue"):
        catalog_id = config.get("iceberg.catalog.glue.id", "").strip()
    elif not impl and kind == "rest":
        endpoint = REST_ENDPOINT.fullmatch(config.get("iceberg.catalog.uri", "").strip())
        if endpoint is None:
            return SinkCatalog(
                elsewhere="the Iceberg catalog is a REST catalog, not Glue's or S3 Tables' endpoint"
            )
        region = region or endpoint["region"]
        warehouse = config.get("iceberg.catalog.warehouse", "").strip()
        bucket = TABLE_BUCKET_ARN.fullmatch(warehouse)
        if endpoint["service"] == "s3tables":
            if bucket is None:
                return SinkCatalog(
                    elsewhere=f"the S3 Tables warehouse {warehouse!r} is not a table bucket ARN"
                )
            catalog_id = f"{bucket['account']}:s3tablescatalog/{bucket['name']}"
        else:
            catalog_id = warehouse
    else:
        found = impl or (f"type {kind}" if kind else "no catalog setting")
        return SinkCatalog(elsewhere=f"the Iceberg catalog is not Glue ({found})")
    if region and own_region and region != own_region:
        return SinkCatalog(
            elsewhere=f"the sink writes to the Glue catalog in region {region}, not {own_region}"
        )
    if not catalog_id:
        return SinkCatalog()
    parsed = CATALOG_ID.fullmatch(catalog_id)
    if parsed is None:
        return SinkCatalog(elsewhere=f"the Glue catalog id {catalog_id!r} is not <account>[:<catalog>]")
    if own_account and parsed["account"] != own_account:
        return SinkCatalog(
            elsewhere=f"the sink writes to the Glue catalog of account {parsed['account']}, not {own_account}"
        )
    federated = (parsed["catalog"] or "").lower()
    if federated and not FEDERATED_CATALOG_NAME.fullmatch(federated):
        return SinkCatalog(elsewhere=f"the Glue catalog {federated!r} is not a catalog name lineage can read")
    return SinkCatalog(glue_catalog=federated)
