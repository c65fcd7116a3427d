"""The Glue lineage target's pure parts: Glue's dataset identity, the plan against its own state, the run
identity of its posts, the setting, and the pacing of PostLineageEvent."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from kafka_lineage.aws.pacing import Pacing
from kafka_lineage.config import ConfigError, Settings
from kafka_lineage.lineage.edge_content import content_for
from kafka_lineage.lineage.events import build
from kafka_lineage.lineage.glue.identity import closing_body, location_dataset, table_dataset, to_glue
from kafka_lineage.lineage.glue.plan import GlueClose, GluePost, glue_fingerprint, graph_of, make_glue_plan
from kafka_lineage.lineage.glue.state import GlueEdgeState, load_glue_states
from kafka_lineage.lineage.glue.target import run_identity
from kafka_lineage.lineage.model import EdgeKey, LineageState
from kafka_lineage.lineage.plan import EmitScope, LineagePlan, Retract, select, tables_needed
from kafka_lineage.lineage.resolve import Target, resolve
from kafka_lineage.model.registry import VersionDefinition
from kafka_lineage.model.tables import TableReads, TableRef
from kafka_lineage.model.topics import TopicKey
from tests.unit.lineage.lineage_builders import CLUSTER_ARN, record, records, settings, source, table
from tests.unit.lineage.openlineage_rules import assert_valid

CUSTOMERS = "dbserver1.inventory.customers"
ORDERS = "dbserver1.inventory.orders"
KEY = TopicKey("cdc", CUSTOMERS)
EDGE = EdgeKey.sink(KEY, TableRef("lakehouse", "customers"))
VERSION = VersionDefinition(
    definition="{}", data_format="AVRO", created_time="2025-03-14T09:15:02.123Z", version_id="v-1"
)


def planned(
    recs: Any,
    states: dict[str, GlueEdgeState] | None = None,
    config: Settings | None = None,
    scope: EmitScope | None = None,
    datazone: LineagePlan | None = None,
    tables: Any = None,
):
    scope = scope or EmitScope()
    config = config or settings()
    resolution = resolve(recs.values(), config, [], [])
    # DataZone's state names the edges to select; its content does not matter here
    stated = {key: LineageState() for key in states or {}}
    selection = select(scope, recs, stated, [s.key for s in config.sources])
    if tables is None:
        tables = {
            ref: table(ref.table, "id", "email", database=ref.database)
            for ref in tables_needed(selection, resolution)
        }
    reads = TableReads(tables)
    return make_glue_plan(
        scope, selection, resolution, reads, states or {}, datazone or LineagePlan()
    ), resolution


def state_of(post: GluePost) -> GlueEdgeState:
    return GlueEdgeState(
        post.fingerprint,
        "r-1",
        "2025-03-14T09:15:02.123Z",
        post.content.job_namespace,
        post.content.job_name,
        post.graph,
    )


def test_a_table_is_its_arn_split_after_the_account_and_an_s3_path_has_one_leading_slash() -> None:
    # Given a Glue table and S3 prefixes as DataZone names them, then Glue's names are these
    customers = table("customers", "id")
    assert table_dataset(customers) == ("arn:aws:glue:eu-west-1:123456789012", "table/lakehouse/customers")
    assert location_dataset("s3://raw-zone", "orders/") == ("s3://raw-zone", "/orders")
    assert location_dataset("s3://raw-zone", "/") == ("s3://raw-zone", "/")


def test_the_glue_body_differs_from_datazones_only_in_the_tables_identity() -> None:
    # Given a sink edge's COMPLETE body as DataZone gets it
    recs = records(record(CUSTOMERS))
    (target,) = resolve(recs.values(), settings(), [], []).edges_of(KEY)
    assert isinstance(target, Target)
    content = content_for(target, table("customers", "id", "email"))
    from datetime import UTC, datetime

    built = build(
        content,
        (),
        {"id": "after.id", "email": "after.email"},
        "00000000-0000-5000-8000-00000000000a",
        datetime(2025, 1, 1, tzinfo=UTC),
    )
    datazone = json.loads(dict(built.bodies)["COMPLETE"])
    # When it is written for Glue
    glue = json.loads(to_glue(dict(built.bodies)["COMPLETE"], content))
    # Then only the output's namespace and name changed: Glue's identity, the column lineage kept
    assert (glue["outputs"][0]["namespace"], glue["outputs"][0]["name"]) == (
        "arn:aws:glue:eu-west-1:123456789012",
        "table/lakehouse/customers",
    )
    assert glue["outputs"][0]["facets"] == datazone["outputs"][0]["facets"]
    assert {k: v for k, v in glue.items() if k != "outputs"} == {
        k: v for k, v in datazone.items() if k != "outputs"
    }
    assert_valid(glue)


def test_a_closing_run_is_a_valid_complete_run_that_reads_and_writes_nothing() -> None:
    from datetime import UTC, datetime

    body = json.loads(
        closing_body(
            "kafka-iceberg-sink",
            "sink/lakehouse.customers",
            "00000000-0000-5000-8000-000000000001",
            datetime(2025, 1, 1, tzinfo=UTC),
            "gone",
        )
    )
    assert (body["eventType"], body["inputs"], body["outputs"]) == ("COMPLETE", [], [])
    assert body["job"]["name"] == "sink/lakehouse.customers"
    assert_valid(body)


def test_every_new_edge_is_posted_once_and_an_unchanged_one_not_at_all() -> None:
    # Given two topics, one already in Glue with the same content
    recs = records(record(CUSTOMERS), record(ORDERS))
    first, _ = planned(recs)
    assert sorted(a.key.topic.topic for a in first.actions) == [CUSTOMERS, ORDERS]
    done = {a.key.key: state_of(a) for a in first.actions if isinstance(a, GluePost) and a.key.topic == KEY}
    # When planned again, then only the other is posted, and the first counts unchanged
    again, _ = planned(recs, done)
    assert [a.key.topic.topic for a in again.actions] == [ORDERS]
    assert again.unchanged == 1
    # And a forced run posts both, the unchanged one as "forced"
    forced, _ = planned(recs, done, scope=EmitScope(force=True))
    assert sorted(a.reason for a in forced.actions if isinstance(a, GluePost)) == ["forced", "new"]


def test_an_edge_gone_is_closed_unless_another_current_edge_names_its_job() -> None:
    # Given an edge Glue holds whose topic now maps elsewhere, and one whose job another edge still names
    recs = records(record(CUSTOMERS))
    gone = EdgeKey.sink(KEY, TableRef("old", "customers"))
    shared = EdgeKey.sink(KEY, TableRef("old", "shared"))
    first, _ = planned(recs)
    (post,) = first.actions
    assert isinstance(post, GluePost)
    states = {
        gone.key: GlueEdgeState(
            "f", "r-0", "2025-01-01T00:00:00.000Z", "kafka-iceberg-sink", "sink/old.customers"
        ),
        shared.key: GlueEdgeState(
            "f", "r-1", "2025-01-01T00:00:00.000Z", post.content.job_namespace, post.content.job_name
        ),
    }
    plan, _ = planned(recs, states)
    closes = {a.key: a.post for a in plan.actions if isinstance(a, GlueClose)}
    assert closes == {gone: True, shared: False}


def test_edges_datazone_keeps_or_holds_back_are_left_as_glue_has_them() -> None:
    # Given an edge Glue holds that the topic no longer has, which DataZone's fail-safe holds back
    recs = records(record(CUSTOMERS))
    old = EdgeKey.sink(KEY, TableRef("old", "customers"))
    states = {
        old.key: GlueEdgeState("f", "r-0", "2025-01-01T00:00:00.000Z", "kafka-iceberg-sink", "sink/old.c")
    }
    from kafka_lineage.lineage.model import LineageState

    held = LineagePlan(held_back=(Retract(old, LineageState(run_id="x"), "unmapped"),))
    plan, _ = planned(recs, states, datazone=held)
    assert not any(isinstance(a, GlueClose) for a in plan.actions)
    kept = LineagePlan(kept=(old,))
    plan, _ = planned(recs, states, datazone=kept)
    assert not any(isinstance(a, GlueClose) for a in plan.actions)


def test_a_missing_table_posts_nothing_and_closes_nothing_of_that_kind() -> None:
    # Given the topic's table missing this run, and its old edge in Glue
    recs = records(record(CUSTOMERS))
    old = EdgeKey.sink(KEY, TableRef("old", "customers"))
    states = {
        old.key: GlueEdgeState("f", "r-0", "2025-01-01T00:00:00.000Z", "kafka-iceberg-sink", "sink/old.c")
    }
    plan, _ = planned(recs, states, tables={TableRef("lakehouse", "customers"): None})
    assert plan.actions == ()


def test_the_graph_is_the_tables_account_else_the_clusters() -> None:
    # Given a source read through a role in another account
    account = "444455556666"
    cross = source(
        "cdc",
        clusterArn=CLUSTER_ARN.replace("123456789012", account),
        roleArn=f"arn:aws:iam::{account}:role/reader",
    )
    config = settings(cross)
    recs = records(
        record(
            CUSTOMERS,
            schema_arn=f"arn:aws:glue:eu-west-1:{account}:schema/cdc/{CUSTOMERS}",
            registry_name=f"{account}:cdc",
        )
    )
    (edge,) = resolve(recs.values(), config, [], []).edges_of(TopicKey(f"{account}:cdc", CUSTOMERS))
    # Then its table edge goes to the account holding the table (the source's), by the source's key
    assert isinstance(edge, Target)
    assert graph_of(edge) == f"{account}:cdc" == edge.table.catalog


def test_a_glue_run_is_deterministic_and_later_than_the_run_it_supersedes() -> None:
    recs = records(record(CUSTOMERS))
    first, _ = planned(recs)
    (post,) = first.actions
    assert isinstance(post, GluePost)
    # Given the same post twice, then the same runId and eventTime
    assert run_identity(post, VERSION) == run_identity(post, VERSION)
    # And a change after a run at a later time is later still, and another run
    earlier = GlueEdgeState("other", "r-9", "2030-01-01T00:00:00.000Z", "j", "n")
    changed = replace(post, previous=earlier, reason="changed")
    run_id, moment = run_identity(changed, VERSION)
    assert run_id != run_identity(post, VERSION)[0]
    assert moment.isoformat() > "2030-01-01T00:00:00"
    # And a forced post is the previous run again
    forced = replace(post, previous=earlier, reason="forced")
    assert run_identity(forced, VERSION)[0] == "r-9"
    assert glue_fingerprint(post.content) != post.content.fingerprint()  # Glue's own emitter version


def test_an_unreadable_state_entry_leaves_its_topic_alone() -> None:
    states, unreadable = load_glue_states(
        {"cdc/t>db/x": {"f": "1", "r": "r", "t": "t", "jn": "n", "j": "j"}, "cdc/t>db/y": {"r": "x"}}
    )
    assert sorted(unreadable) == ["cdc/t>db/y"]
    assert "cdc/t>db/x" in states


@pytest.mark.parametrize(
    ("targets", "error"),
    [
        ([], "names no target"),
        (["datazone", "datazone"], "more than once"),
        (["datazone", "atlas"], "datazone"),
    ],
)
def test_lineage_targets_refuse_what_cannot_run_naming_the_setting(targets: list[str], error: str) -> None:
    environ = {
        "DOMAIN_ID": "dzd_local1234",
        "PROJECT_ID": "prj1",
        "SOURCES": json.dumps([source()]),
        "LINEAGE_TARGETS": json.dumps(targets),
    }
    with pytest.raises(ConfigError, match=error) as refused:
        Settings.from_environment(environ)
    assert "LINEAGE_TARGETS" in str(refused.value)


def test_lineage_targets_default_to_datazone_alone() -> None:
    assert settings().lineage_targets == ("datazone",)
    assert not settings().glue_lineage
    assert settings().datazone_lineage
    # And Glue's graph alone is a valid choice (contract section 9: any of the two)
    glue = Settings.model_validate({**settings().model_dump(), "lineage_targets": ["glue"]})
    assert glue.glue_lineage
    assert not glue.datazone_lineage
    both = Settings.model_validate({**settings().model_dump(), "lineage_targets": ["datazone", "glue"]})
    assert both.glue_lineage
    assert both.to_environment()["LINEAGE_TARGETS"] == '["datazone","glue"]'


def test_post_lineage_event_has_its_own_bucket_that_starts_low() -> None:
    # Given a Glue pacing, then PostLineageEvent starts at a fifth of its 10 TPS ceiling, apart from the reads
    pacing = Pacing("glue")
    post = pacing.limiter("PostLineageEvent")
    reads = pacing.limiter("GetTables")
    assert post is not None
    assert reads is not None
    assert (post.per_second, post.ceiling) == (2.0, 10.0)
    assert post is not reads


def test_an_edge_without_a_glue_table_goes_to_the_graph_of_its_topics_cluster() -> None:
    # Given a consumer group reading a topic of a cluster in a source account (read through its role), and one
    # of the functions' own account
    from kafka_lineage.config import Source
    from kafka_lineage.lineage.consumer_inputs import Consumer
    from kafka_lineage.model.consumers import ConsumerEdge

    account = "444455556666"
    cross = Source.model_validate(
        source(
            clusterArn=CLUSTER_ARN.replace("123456789012", account), roleArn=f"arn:aws:iam::{account}:role/r"
        )
    )
    own = Source.model_validate(source())
    for where, expected in ((cross, f"{account}:cdc"), (own, "")):
        edge = Consumer(KEY, record(CUSTOMERS), where, ConsumerEdge(KEY, "billing", where.cluster_arn))
        # Then its run goes into the cluster's account's graph: the source's key, or "" for the own account
        assert graph_of(edge) == expected


def test_glue_posts_cut_short_by_the_deadline_after_a_save_hand_on_to_a_follow_up() -> None:
    # Given a Glue apply that saved its finished posts, with some left for the deadline
    from kafka_lineage.lineage.glue.target import GlueReport
    from kafka_lineage.lineage.result import EmitResult

    result = EmitResult(dry_run=False, per_target=True)
    result.record_target("glue", GlueReport(posted=3, remaining=2, state_writes=1))
    # Then the run is incomplete and has progressed: the handler hands the event on
    assert (result.incomplete, result.progressed, result.remaining) == (True, True, 2)
    assert result.to_dict()["glue"]["remaining"] == 2
