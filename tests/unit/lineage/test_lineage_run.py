"""The whole emission in memory: group-by-group saves, the lease checked before each, the deadline."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bench import seed
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.lineage.model import EdgeKey, load_states, state_entries
from kafka_lineage.lineage.plan import EmitScope
from kafka_lineage.lineage.run import emit_lineage
from kafka_lineage.model.connectors import ConnectorConfig, ConnectorReads
from kafka_lineage.model.failures import LeaseLost
from tests.unit.lineage.lineage_builders import settings, source
from tests.unit.lineage.memory_world import memory_world

CONFIG = settings(source(tableRule=seed.TABLE_RULE))


class Lease:
    def __init__(self, lost_after: int | None = None) -> None:
        self.checks = 0
        self.lost_after = lost_after

    def acquire(self, wait_seconds: float) -> None:
        self.acquired = wait_seconds

    def ensure_held(self) -> None:
        self.checks += 1
        if self.lost_after is not None and self.checks > self.lost_after:
            raise LeaseLost("generation 1 was taken over by another invocation (generation 2)")


def test_a_first_run_writes_each_state_parameter_once_checking_the_lease_before_every_save():
    # Given 300 topics (their states spread over most of the store's 256 hash groups)
    world, ssm, _events = memory_world(300)
    lease = Lease()
    # When the first run emits them all
    result = emit_lineage(EmitScope(), CONFIG, world, lease=lease)
    # Then every state parameter was written exactly once, each save after a lease check
    assert result.emitted == 294
    assert ssm.puts == len(ssm.values) == result.state_writes > 100
    assert 1 <= lease.checks <= ssm.puts
    # And a second run finds every topic recorded
    again = emit_lineage(EmitScope(), CONFIG, world, lease=Lease())
    assert (again.emitted, again.unchanged) == (0, 294)


def test_a_lost_lease_stops_every_write_and_every_further_topic():
    world, ssm, _events = memory_world(300)
    result = emit_lineage(EmitScope(), CONFIG, world, lease=Lease(lost_after=0))
    assert result.lease_lost
    assert ssm.puts == 0
    assert result.remaining > 0
    assert result.to_dict()["leaseLost"] is True


@pytest.mark.parametrize("left", [0.0, 200.0])
def test_inside_the_deadline_margin_nothing_starts(left):
    # Given an invocation with `left` seconds, and the default 60 s margin
    world, _ssm, events = memory_world(50)
    result = emit_lineage(
        EmitScope(), CONFIG, world, deadline=Deadline(lambda: left, CONFIG.tuning.deadline_margin_seconds)
    )
    if left < 60:
        # (an invocation that starts inside its margin does not even read: it cannot know what is left)
        assert (result.emitted, result.incomplete, result.progressed) == (0, True, False)
        assert events.count == 0
    else:
        assert (result.emitted, result.incomplete) == (49, False)


class Connectors:
    """MSK Connect as the lineage run reads it: a fixed answer, and how many reads were made."""

    def __init__(self, reads: ConnectorReads) -> None:
        self.reads = reads
        self.calls = 0

    def read(self, sources, stop=None) -> ConnectorReads:
        self.calls += 1
        return self.reads


def sink_config(name: str, **config: str) -> ConnectorConfig:
    cls = "org.apache.iceberg.connect.IcebergSinkConnector"
    return ConnectorConfig(
        name=name,
        arn=f"arn:aws:kafkaconnect:eu-west-1:123456789012:connector/{name}/abc",
        cluster_name="cdc",
        bootstrap_servers=("b-1.cdc:9098",),
        state="RUNNING",
        connector_class=cls,
        config={"connector.class": cls,
                "iceberg.catalog.catalog-impl": "org.apache.iceberg.aws.glue.GlueCatalog", **config},
    )  # fmt: skip


def test_the_result_reports_each_edges_origin_and_what_the_connectors_leave_open():
    # Given 20 topics, a sink that routes one of them by regex and one that cannot pair its two topics with
    # its two tables (with one topic, that topic would feed both)
    world, _ssm, _events = memory_world(20)
    topics = sorted(r.schema_name for r in world.asset_records.load().values())
    routed = next(t for t in topics if seed_table(world, t))
    world.connectors = Connectors(
        ConnectorReads(
            connectors=(
                sink_config("lake-sink", **{"topics.regex": routed.replace(".", r"\."),
                                            "iceberg.tables": f"lakehouse.{seed_table(world, routed)}"}),
                sink_config("multi-sink", topics=f"{topics[0]},{topics[-1]}", **{
                    "iceberg.tables": "lakehouse.a,lakehouse.b", "iceberg.tables.route-field": "region",
                    "iceberg.table.lakehouse.a.route-regex": "eu",
                    "iceberg.table.lakehouse.b.route-regex": "us"}),
            )
        )
    )  # fmt: skip
    # When lineage runs
    result = emit_lineage(EmitScope(), CONFIG, world).to_dict()
    # Then the routed topic's edge is the connector's, the others the rule's, and the open one is listed
    origins = {e["topic"]: e["origin"] for e in result["emissions"]}
    assert origins[routed] == "connector:lake-sink"
    assert {o for t, o in origins.items() if t != routed} == {"rule"}
    assert [(a["topic"], a["connector"]) for a in result["ambiguous"]] == [
        (topics[0], "multi-sink"),
        (topics[-1], "multi-sink"),
    ]
    assert result["connectorErrors"] == []
    assert world.connectors.calls == 1


def test_connectors_that_cannot_be_read_are_reported_as_a_failure_and_their_edges_kept():
    world, _ssm, _events = memory_world(10)
    world.connectors = Connectors(
        ConnectorReads(read_ok=False, errors=("ListConnectors: AccessDeniedException: no",))
    )
    result = emit_lineage(EmitScope(), CONFIG, world).to_dict()
    assert result["connectorErrors"] == [{"error": "ListConnectors: AccessDeniedException: no"}]
    assert {"error": "reading MSK Connect connectors: ListConnectors: AccessDeniedException: no"} in result[
        "failed"
    ]
    assert result["emitted"] == 10 - len(result["unmapped"])


def test_every_source_off_reads_no_connector():
    world, _ssm, _events = memory_world(5)
    reader = Connectors(ConnectorReads())
    world.connectors = reader
    emit_lineage(EmitScope(), settings(source(tableRule=seed.TABLE_RULE, connectors="off")), world)
    assert reader.calls == 0


def seed_table(world, topic: str) -> str:
    """The Glue table the memory world has for `topic` (by the seed's rule), or ''."""
    return next((name for name, t in world.tables.topics.items() if t.name == topic), "")


def test_state_in_the_per_topic_layout_is_carried_over_to_edges_with_no_post_and_no_ghost():
    # Given 30 topics emitted by the per-edge release, then their state rewritten in the per-topic layout
    # (keyed by topic, table in `tb`), as the release before edges left it
    world, ssm, events = memory_world(30)
    first = emit_lineage(EmitScope(), CONFIG, world)
    edges = load_states(world.state.load()).states
    old_layout: dict[str, Any] = dict.fromkeys(edges)
    for key, state in edges.items():
        legacy = replace(state, origin="")
        old_layout.update(state_entries(EdgeKey.parse(key).topic.key, legacy))
    world.state.save(old_layout)
    assert all(EdgeKey.parse(k).kind == "legacy" for k in world.state.load())
    posts = events.count
    # When the per-edge release runs
    result = emit_lineage(EmitScope(), CONFIG, world)
    # Then nothing is posted or deleted, every edge is unchanged, and the store holds only edge keys
    assert (result.emitted, result.unchanged, events.count) == (0, first.emitted, posts)
    after = load_states(world.state.load())
    assert set(after.states) == set(edges)
    assert {k: s.run_id for k, s in after.states.items()} == {k: s.run_id for k, s in edges.items()}
    assert not after.migrated
    # And the next run writes nothing at all
    puts = ssm.puts
    again = emit_lineage(EmitScope(), CONFIG, world)
    assert (again.emitted, again.unchanged, ssm.puts) == (0, first.emitted, puts)


def test_a_deadline_during_the_table_reads_hands_nothing_on_and_writes_nothing():
    # Given 20 topics, and the Glue reads stopped by the deadline before every database was read
    world, ssm, events = memory_world(20)
    read = world.tables.read

    def stopped(wanted, stop=None):
        return replace(read(wanted, stop), stopped=True)

    world.tables.read = stopped  # type: ignore[method-assign]
    # When the run starts
    result = emit_lineage(EmitScope(), CONFIG, world)
    # Then it says incomplete with every selected topic remaining, and nothing was posted or saved
    assert (result.incomplete, result.remaining, result.emitted) == (True, 20, 0)
    assert (events.count, ssm.puts) == (0, 0)


def test_unreadable_records_and_state_entries_are_reported_as_failures():
    # Given an asset mapping entry and a lineage state entry that cannot be read
    world, _ssm, _events = memory_world(5)
    world.asset_records.unreadable.append("arn:aws:glue:eu-west-1:123456789012:schema/cdc/broken")
    emit_lineage(EmitScope(), CONFIG, world)
    (edge_key, entry), *_ = world.state.load().items()
    loaded = world.state.load()
    world.state.load = lambda: {**loaded, edge_key: {**entry, "s": 5}}  # type: ignore[method-assign]
    # When the run reads them
    result = emit_lineage(EmitScope(), CONFIG, world).to_dict()
    # Then both are failures in the result, and the topic of the unreadable state is left untouched
    errors = [item["error"] for item in result["failed"]]
    assert "its asset mapping entry is unreadable" in errors
    assert "its lineage state entry in SSM is unreadable; left untouched" in errors
    assert result["emitted"] == 0
