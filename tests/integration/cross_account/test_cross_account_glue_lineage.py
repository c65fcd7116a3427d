"""The Glue lineage target with a source in another account, in IAM mode: an edge whose table is in the
source account goes into that account's Glue lineage graph, through the source's role."""

from __future__ import annotations

from local import world
from tests.integration.cross_account.conftest import CUSTOMERS, SOURCE_ACCOUNT, Accounts, source


def test_an_edge_whose_table_is_in_a_source_account_is_posted_into_that_accounts_graph(accounts: Accounts):
    # Given a source account whose reader role may post lineage (its stack's `glueLineage`), its registry,
    # cluster and table, and the governance stack posting to Glue too
    accounts.source_context["glueLineage"] = True
    accounts.monkeypatch.setenv("LINEAGE_TARGETS", '["datazone", "glue"]')
    accounts.source_account(SOURCE_ACCOUNT, trusted_external_id="ext-4c1d9e")
    accounts.schema(SOURCE_ACCOUNT, CUSTOMERS)
    accounts.table(SOURCE_ACCOUNT, "customers", "id", "name")
    accounts.configure(source(SOURCE_ACCOUNT, "ext-4c1d9e"))
    accounts.sync()

    # When lineage-emission runs in the governance account
    emitted = accounts.emit()

    # Then every call was allowed, and the edge went into the source account's graph, not the governance one
    assert accounts.aws.iam.denials == []
    assert emitted["glue"]["posted"] == 1, emitted
    assert accounts.aws.glue_lineage.accepted(SOURCE_ACCOUNT, world.REGION) == 1
    assert accounts.aws.glue_lineage.accepted(world.ACCOUNT, world.REGION) == 0
    accounts.aws.glue_lineage.settle(SOURCE_ACCOUNT, world.REGION)
    glue = accounts.aws.client("glue", account=SOURCE_ACCOUNT)
    table = f"arn:aws:glue:{world.REGION}:{SOURCE_ACCOUNT}:table/lakehouse/customers"
    (job,) = glue.get_lineage_node(Identifier=table)["UpstreamNodes"]
    assert glue.get_lineage_node(Identifier=job["Id"])["SourceIdentifier"] == (
        "kafka-iceberg-sink/sink/lakehouse.customers"
    )


def test_without_the_source_stacks_opt_in_the_post_is_denied_and_reported_for_glue(accounts: Accounts):
    # Given the same source account, its stack deployed without `glueLineage`
    accounts.monkeypatch.setenv("LINEAGE_TARGETS", '["datazone", "glue"]')
    accounts.source_account(SOURCE_ACCOUNT, trusted_external_id="ext-4c1d9e")
    accounts.schema(SOURCE_ACCOUNT, CUSTOMERS)
    accounts.table(SOURCE_ACCOUNT, "customers", "id", "name")
    accounts.configure(source(SOURCE_ACCOUNT, "ext-4c1d9e"))
    accounts.sync()

    # When lineage-emission runs, then DataZone gets the edge, and the Glue post's denial is its failure
    try:
        accounts.emit()
        raise AssertionError("the run should raise with the Glue failure")
    except Exception as error:  # LineageEmissionFailed, whose message is the summary
        summary = str(error)
    assert '"emitted":1' in summary
    assert '"target":"glue"' in summary
    assert "glue:PostLineageEvent" in summary
