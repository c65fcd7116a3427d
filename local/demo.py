"""`make demo`: the whole pipeline against the local AWS stand-ins (no account, no network).

A Glue registry holding the Debezium tutorial's inventory topics (Avro, JSON Schema and Protobuf) plus a
heartbeat topic is mirrored into DataZone; then a schema evolves, another is deleted, and lineage to the
Glue/Iceberg tables is emitted: from the MSK Connect connectors (a Debezium MySQL source, an Iceberg sink
reading `topics.regex`, an archive sink), an operator's mapping and the table rule. Each step prints what it
did; the end shows the catalog and the lineage, database table -> topic -> Glue table.
"""

from __future__ import annotations

import os

# The demo prints its own tables: keep the Lambdas' JSON logs and metric blobs out of the way.
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")

import dataclasses
import json
import logging
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3

from local import access_checks, access_world, demo_accounts, demo_glue, demo_products, lineage_view, world
from local.deployed import DeployedFunctions
from local.runs import Context, route_function_logs
from local.standins import LocalAws

OUT = world.REPO / "out" / "demo"
HEARTBEAT = "__debezium-heartbeat.dbserver1"
# A governed domain: a rule requires an ownership form before publishing; `assetForms` gives every asset one.
OWNERSHIP_MODEL = """namespace governance
@documentation("Who owns a data set, as the domain's publishing rule requires.")
structure DataOwnershipForm {
    @required
    owner: String
    source: String
}
"""
CONSUMER_PROJECT = "analyticsprj01"


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def say(title: str) -> None:
    print(f"\n=== {title}")


def sync(deployed: DeployedFunctions, event: dict[str, Any] | None = None) -> dict[str, Any]:
    aws = deployed.aws
    aws.calls.clear()
    result: dict[str, Any] = deployed.invoke("schema-sync", event or {}, Context())
    writes = sum(
        n
        for key, n in aws.call_counts().items()
        if key.split(":")[1].startswith(("Create", "Put", "Delete", "Post"))
    )
    print(
        table(
            [
                [
                    result["created"],
                    result["updated"],
                    result["unchanged"],
                    result["deleted"],
                    result.get("heldTotal", 0),
                    len(result["failed"]),
                    sum(aws.call_counts().values()),
                    writes,
                ]
            ],
            ["created", "updated", "unchanged", "deleted", "held", "failed", "AWS calls", "writes"],
        )
    )
    return result


def show_catalog(aws: LocalAws) -> None:
    rows = []
    for asset in sorted(aws.datazone.assets(world.DOMAIN_ID), key=lambda a: a.name):
        form = asset.forms["KafkaSchemaFormType"]
        versions = ", ".join(f"v{v['version_number']}" for v in form.get("schema_versions", []))
        columns = asset.forms.get("RelationalTableForm", {}).get("columns", [])
        published = "yes" if asset.listing_status == "ACTIVE" else "no"
        owner = asset.forms.get("Ownership", {}).get("owner", "")
        rows.append(
            [
                asset.name,
                form["data_format"],
                form["schema_version"],
                versions,
                len(columns),
                published,
                form.get("schema_status", ""),
                owner,
            ]
        )
    headers = ["topic (asset)", "format", "latest", "versions", "columns", "published", "schema", "owner"]
    print(table(rows, headers))


def governed_domain(aws: LocalAws) -> dict[str, str]:
    """The domain's administrator adds a form type and a publishing rule requiring it; the deployment's
    `assetForms` satisfies it. Returns the environment that says so (ASSET_FORMS)."""
    import boto3

    datazone = boto3.client("datazone", region_name=world.REGION)
    revision = datazone.create_form_type(
        domainIdentifier=world.DOMAIN_ID,
        name="DataOwnershipForm",
        model={"smithy": OWNERSHIP_MODEL},
        owningProjectIdentifier=world.PROJECT_ID,
        status="ENABLED",
    )["revision"]
    datazone.create_rule(
        domainIdentifier=world.DOMAIN_ID,
        name="ownership required",
        target={"domainUnitTarget": {"domainUnitId": aws.datazone.root_domain_unit(world.DOMAIN_ID)}},
        action="CREATE_LISTING_CHANGE_SET",
        scope={"assetType": {"selectionMode": "ALL"}, "project": {"selectionMode": "ALL"}},
        detail={
            "metadataFormEnforcementDetail": {
                "requiredMetadataForms": [{"typeIdentifier": "DataOwnershipForm", "typeRevision": revision}]
            }
        },
    )
    forms = [
        {
            "formName": "Ownership",
            "typeIdentifier": "DataOwnershipForm",
            "typeRevision": revision,
            "content": {"owner": "{registryName}-data-team", "source": "{schemaArn}"},
        }
    ]
    print(
        f"Domain rule 'ownership required' (METADATA_FORM_ENFORCEMENT, on publishing): every asset needs "
        f"DataOwnershipForm revision {revision}; assetForms gives each one, "
        "owner '{registryName}-data-team'"
    )
    return {"ASSET_FORMS": json.dumps(forms)}


def show_columns(aws: LocalAws, topic: str) -> None:
    for asset in aws.datazone.assets(world.DOMAIN_ID):
        if asset.name == topic:
            columns = asset.forms["RelationalTableForm"]["columns"]
            print(table([[c["columnName"], c["dataType"]] for c in columns], ["column", "type"]))


def show_iam(aws: LocalAws) -> None:
    per_role: dict[str, list[int]] = {}
    for key, count in aws.iam.allowed.items():
        per_role.setdefault(key.split(" ")[0], [0, 0, 0])[0] += count
        per_role[key.split(" ")[0]][1] += 1
    for denial in aws.iam.denials:
        per_role.setdefault(denial.role, [0, 0, 0])[2] += 1
    rows = [[role, *counts] for role, counts in sorted(per_role.items())]
    print(table(rows, ["role", "calls allowed", "distinct actions", "denied"]))
    for denial in aws.iam.denials:
        print(f"  denied: {denial.message}")


def main(log_file: Path | None = None) -> int:
    """The demo's steps. The terminal shows only their tables: the functions' JSON logs (INFO) go to
    `log_file`, by default out/demo/functions.log."""
    OUT.mkdir(parents=True, exist_ok=True)
    log_path = log_file or OUT / "functions.log"
    with log_path.open("w", encoding="utf-8") as log, LocalAws() as aws:
        route_function_logs(log, logging.INFO)
        say("Local AWS stand-ins up at " + aws.endpoint_url)
        # IAM mode: each function runs under its own role, as synthesized from the stack for this
        # configuration, and every AWS call it makes must be allowed by that role.
        deployed = DeployedFunctions(aws)
        world.bootstrap_catalog(aws.datazone, deployed.handler("asset-type-resource"))
        aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
        world.create_registry("cdc")
        inventory = world.inventory()
        for spec in inventory:
            world.register("cdc", spec)
        world.create_topics(aws, inventory)
        rule = {
            "database": "lakehouse",
            "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$",
            "table": "{table}",
        }
        os.environ.update(world.environment([world.source_config(tableRule=rule)]))
        os.environ.update(governed_domain(aws))
        # Lineage goes to the Glue Data Catalog's lineage graph too (the second target).
        os.environ["LINEAGE_TARGETS"] = json.dumps(["datazone", "glue"])
        print(
            table(
                [[s.name, s.data_format, len(s.definition)] for s in inventory],
                ["registry cdc: schema", "format", "definition chars"],
            )
        )

        say("1. First sync: every schema becomes a published DataZone asset (assetForms satisfies the rule)")
        sync(deployed)
        say("2. Sync again, nothing changed: listings and mapping only, zero writes")
        sync(deployed)

        world.register("cdc", world.inventory_v2("customers"))
        say("3. Debezium registered v2 of dbserver1.inventory.customers: the asset is revised")
        sync(deployed)

        gone, subscribed = "dbserver1.inventory.geom", "dbserver1.inventory.products_on_hand"
        aws.datazone.add_project(world.DOMAIN_ID, CONSUMER_PROJECT)
        [held] = [a.id for a in aws.datazone.assets(world.DOMAIN_ID) if a.name == subscribed]
        aws.datazone.subscribe(world.DOMAIN_ID, held, CONSUMER_PROJECT, "stock dashboard")
        world.delete_schema("cdc", gone)
        world.delete_schema("cdc", subscribed)
        say(
            f"4. {gone} and {subscribed} were deleted from the registry: the first asset is removed (one "
            f"DeleteAsset, its listing with it); the second has a subscriber (project {CONSUMER_PROJECT}), "
            "so its deletion is held"
        )
        result = sync(deployed)
        for entry in result.get("held", []):
            print(
                f"held: {entry['schemaArn'].rsplit('/', 1)[-1]} (asset {entry['assetId']}): "
                f"{entry['reason']}, {entry['subscriptions']} approved subscription(s); nothing revoked"
            )

        say("Catalog: KafkaTopicAssetType assets in DataZone")
        show_catalog(aws)
        say("Columns of dbserver1.inventory.customers (from its Avro definition)")
        show_columns(aws, "dbserver1.inventory.customers")

        lineage = _lineage(deployed)
        say(
            "5b. The Glue Data Catalog's lineage graph got every edge too (Glue's identity): a Glue 6.1 job "
            "reads the Iceberg table and writes a report; GetLineageNode walks back from the report"
        )
        demo_glue.show(aws)
        _drift(deployed)
        _access(deployed)
        demo_products.run(deployed, sync, say)
        demo_accounts.show(deployed, say, table)
        # The page again, now with the v3 run's schemaDrift facet on the customers edge.
        lineage_view.show(boto3.client("datazone"), world.DOMAIN_ID, OUT)
        say(
            "IAM: each call authorised against the role it ran under, as synthesized: a function's own, or "
            "another account's role it assumed"
        )
        show_iam(aws)
        catalog = [dataclasses.asdict(asset) for asset in aws.datazone.assets(world.DOMAIN_ID)]
        (OUT / "catalog.json").write_text(json.dumps(catalog, indent=2, default=str, sort_keys=True))
        say(f"Written: {OUT / 'catalog.json'}, the lineage picture {lineage} (the drift included)")
    print(f"The functions' logs: {log_path}")
    return 0


def _lineage(deployed: DeployedFunctions) -> str:
    """5. Emit lineage to the Iceberg tables and show it (terminal and an HTML page)."""
    say(
        "5. Lineage: database table -> Kafka topic -> Glue/Iceberg table, from the MSK Connect connectors "
        "(a Debezium MySQL source, Iceberg sinks), an operator's mapping and the table rule; each edge one "
        "OpenLineage run in DataZone"
    )
    return str(
        lineage_view.demo(
            deployed.aws,
            world.DOMAIN_ID,
            world.MAPPING_PATH,
            OUT,
            Context(),
            deployed.handler("lineage-emission"),
            brokers=world.BROKERS_IAM,
        )
    )


def _drift(deployed: DeployedFunctions) -> None:
    """6. A version that drops a column the lakehouse table is fed from: announced before it breaks."""
    aws, handler = deployed.aws, deployed.handler("lineage-emission")

    catcher = world.BusCatcher("kafka-lineage.lineage-emission", "Schema Drift Detected")
    topic = "dbserver1.inventory.customers"
    # DataZone's own lineage continues from the Iceberg table: a Glue job copies it to Redshift, and a
    # QuickSight dashboard reads that. The drift's blast radius reaches them.
    native, now = aws.datazone.native_lineage(world.DOMAIN_ID), datetime.now(UTC)
    table_arn = f"arn:aws:glue:{world.REGION}:{world.ACCOUNT}:table/lakehouse/customers"
    dataset, job_run = "amazon.datazone.DatasetLineageNodeType", "amazon.datazone.JobRunLineageNodeType"
    chain = [
        ("glue-etl.customers_to_redshift/jr_0001", job_run, "jr_0001"),
        ("redshift://dwh.eu-west-1:5439/dev/public/customers", dataset, "dev.public.customers"),
        (f"arn:aws:quicksight:{world.REGION}:{world.ACCOUNT}:dashboard/churn", dataset, "churn"),
    ]
    upstream = table_arn
    for node, type_name, name in chain:
        native.add_node(node, type_name, name, now)
        native.add_edge(upstream, node, now)
        upstream = node
    # The churn team's project subscribes to the topic's asset in the catalog, and its owner approves:
    # the drift names that project as one to call.
    churn = access_world.add_consumer(
        aws.datazone, "prjchurnteam01", [access_world.consumer_role("churn-reader", path="/analytics/")]
    )
    access_world.subscribe(aws.datazone, churn, topic)
    print(f"DataZone: project {churn.project_id} subscribed to {topic}; the owner approved")
    world.register("cdc", world.inventory_without("customers", "email"))
    say(f"6. Debezium registered v3 of {topic} without `email`: schema drift")
    sync(deployed)
    result = handler({}, Context())
    print(
        f"Lineage run: emitted {result['emitted']} edges (the first hop, the v3 sink run, which carries "
        "a schemaDrift facet, and the consumer groups' runs of v3), "
        f"drift announced {sum(1 for d in result['drift'] if d['announced'])}, failed {len(result['failed'])}"
    )
    for event in catcher.drain():
        detail = event["detail"]
        print(
            f"EventBridge <- {event['detail-type']} ({event['source']}): {detail['topic']} "
            f"v{detail['fromVersion']} -> v{detail['toVersion']}, severity {detail['severity']}"
        )
        rows = [[c["field"], c["change"], c["before"], c["after"]] for c in detail["changes"]]
        print(table(rows, ["field", "change", "before", "after"]))
        impacted = [[t["table"], ", ".join(t["columns"])] for t in detail["impacted"]]
        print(table(impacted, ["impacted table", "columns"]))
        downstream = [
            [t["table"], n["hops"], n["typeName"].rsplit(".", 1)[-1], n.get("sourceIdentifier", n["id"])]
            for t in detail["impacted"]
            for n in t["downstream"]
        ]
        print(table(downstream, ["downstream of", "hops", "node type", "node"]))
        # Who to call: the groups that read the topic, and the projects subscribed to its asset.
        readers = [["consumer group", c["group"]] for c in detail.get("consumers", [])]
        readers += [["subscribed project", s["projectId"]] for s in detail.get("subscribers", [])]
        print(table(readers, ["who to call", "name"]))
        # The stack's SchemaDriftDetected rule hands the event to schema-sync: the asset shows the drift.
        # (moto's delivery to SQS leaves out the envelope's `account`, which EventBridge always sets.)
        sync(deployed, {"account": world.ACCOUNT, "version": "0", "time": event.get("time", ""), **event})
    for asset in aws.datazone.assets(world.DOMAIN_ID):
        if asset.name == topic:
            form = asset.forms.get("KafkaSchemaDriftFormType", {})
            keys = (
                "drift_status",
                "from_version",
                "to_version",
                "impacted_tables",
                "consumer_groups",
                "subscriber_projects",
                "summary",
            )
            print(f"Catalog asset {topic}, KafkaSchemaDriftFormType:")
            print(table([[key, form.get(key)] for key in keys], ["member", "value"]))
    again = handler({}, Context())
    print(f"Lineage again: drift announced {len(again['drift'])}, caught {len(catcher.drain())} (once only)")


def _access(deployed: DeployedFunctions) -> None:
    """7. Access through the catalog: a subscription grants reading the topic; its revoke takes that away."""
    aws, handler = deployed.aws, deployed.handler("subscription-grants")

    # The stack's `access` setting: roles under /analytics/ may receive grants; a project's consumers join
    # the groups named after it. (Deployed with `access`, the stack holds the subscription-grants function.)
    os.environ["ACCESS"] = json.dumps(
        {"consumerRoles": ["arn:aws:iam::*:role/analytics/*"], "consumerGroups": ["{projectId}-*"]}
    )
    requested = world.BusCatcher("aws.datazone", "Subscription Grant Requested")
    revoking = world.BusCatcher("aws.datazone", "Subscription Grant Revoke Requested")
    orders, other = "dbserver1.inventory.orders", "dbserver1.inventory.customers"
    role = access_world.consumer_role("orders-reader", path="/analytics/")
    project = "prjordersapp01"
    consumer = access_world.add_consumer(aws.datazone, project, [role])
    subscription = access_world.subscribe(aws.datazone, consumer, orders)
    say(
        f"7. Access: project {project} subscribed to {orders} (its subscription target names the role "
        f"{role.rsplit('/', 1)[-1]}), and the owner approved; DataZone asks for the grant"
    )

    def deliver(catcher: world.BusCatcher) -> None:
        for event in catcher.drain():
            result = handler(event, Context())
            counts = ", ".join(f"{key} {n}" for key, n in sorted(result.get("counts", {}).items()) if n)
            print(f"subscription-grants <- {event['detail-type']}: {counts or 'nothing to do'}")

    def show() -> None:
        grant = access_world.grant_of(aws.datazone, subscription)
        print(f"grant {grant.id}: " + ", ".join(status for _, status in grant.assets))
        group = f"{project}-app"
        rows = [
            [topic, group, "allowed" if access_checks.reads(role, topic, group) else "denied"]
            for topic in (orders, other)
        ]
        print(table(rows, [f"IAM: may {role.rsplit('/', 1)[-1]} read", "as group", "decision"]))

    deliver(requested)
    show()
    access_world.revoke(subscription)
    say("8. The owner revoked the subscription: DataZone asks for the revoke, and the access goes")
    deliver(revoking)
    show()


if __name__ == "__main__":
    sys.exit(main())
