"""The DataZone downstream walker over a fake GetLineageNode: hops, depth, cycles, fan-out, caps, errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from kafka_lineage.aws.lineage_graph import MAX_REFERENCES, DataZoneDownstreamWalker
from kafka_lineage.drift import assess_impact, diff_fields
from kafka_lineage.model.downstream import DownstreamNode
from kafka_lineage.model.failures import AwsError
from local import debezium
from tests.unit.drift.drift_builders import table
from tests.unit.fake_clients import CountingLimiter, FakeClient, aws_error, wired

DOMAIN = "dzd_unit"
DATASET = "amazon.datazone.DatasetLineageNodeType"
RUN = "amazon.datazone.JobRunLineageNodeType"
JOB = "amazon.datazone.JobLineageNodeType"
TABLE_ARN = "arn:aws:glue:eu-west-1:123456789012:table/lakehouse/orders"


def client_error(code: str, operation: str = "GetLineageNode") -> AwsError:
    return aws_error(code, code, operation)


@dataclass
class FakeDataZone(FakeClient):
    """GetLineageNode over an in-memory graph: node id -> (type, name, sourceIdentifier, downstream ids)."""

    nodes: dict[str, tuple[str, str, str, list[str]]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    fail_on: dict[str, str] = field(default_factory=dict)  # identifier -> error code

    def node(self, node_id: str, type_name: str = DATASET, sid: str | None = None) -> str:
        self.nodes[node_id] = (type_name, f"name-{node_id}", sid or f"sid/{node_id}", [])
        return node_id

    def edge(self, upstream: str, *downstream: str) -> None:
        self.nodes[upstream][3].extend(downstream)

    def get_lineage_node(self, domainIdentifier: str, identifier: str) -> dict[str, Any]:
        assert domainIdentifier == DOMAIN
        self.calls.append(identifier)
        if identifier in self.fail_on:
            raise client_error(self.fail_on[identifier])
        node_id = identifier
        if identifier not in self.nodes:
            node_id = next((i for i, n in self.nodes.items() if n[2] == identifier), "")
        if not node_id:
            raise client_error("ResourceNotFoundException")
        type_name, name, sid, downstream = self.nodes[node_id]
        return {
            "domainId": DOMAIN,
            "id": node_id,
            "typeName": type_name,
            "name": name,
            "sourceIdentifier": sid,
            "downstreamNodes": [{"id": d} for d in downstream],
        }


def customers_v2_without_email() -> str:
    topic = debezium.topic_for("customers")
    kept = tuple(c for c in debezium.TABLES["customers"] if c.name != "email")
    return debezium.render(debezium.envelope(topic, kept), "AVRO")


def table_root(fake: FakeDataZone) -> str:
    return fake.node("table", sid=TABLE_ARN)


def walk(fake: FakeDataZone, **options: Any) -> list[tuple[str, int]]:
    walker = DataZoneDownstreamWalker(fake, DOMAIN, **options)
    return [(n.id, n.hops) for n in walker(TABLE_ARN)]


def chain(fake: FakeDataZone, length: int) -> None:
    """table -> run1 -> d1 -> run2 -> d2 -> ... (a job run between each pair of datasets)."""
    previous = table_root(fake)
    for step in range(1, length + 1):
        run, dataset = fake.node(f"run{step}", RUN), fake.node(f"d{step}")
        fake.edge(previous, run)
        fake.edge(run, dataset)
        previous = dataset


class TestHopsAndDepth:
    def test_given_job_runs_between_datasets_then_hops_count_datasets_and_runs_share_their_step(self):
        # Given: table -> run1 -> d1 -> run2 -> d2 -> run3 -> d3 -> run4 -> d4
        fake = FakeDataZone()
        chain(fake, 4)
        # When
        found = walk(fake, depth=3)
        # Then
        assert found == [("run1", 1), ("d1", 1), ("run2", 2), ("d2", 2), ("run3", 3), ("d3", 3)]

    @pytest.mark.parametrize("depth", [1, 2, 3, 5])
    def test_given_a_depth_then_nothing_beyond_it_is_read(self, depth: int):
        # Given
        fake = FakeDataZone()
        chain(fake, 6)
        # When
        found = walk(fake, depth=depth)
        # Then: two nodes a step, and one call for the root plus one a node
        assert max(hops for _, hops in found) == depth
        assert len(found) == 2 * depth
        assert len(fake.calls) == 1 + 2 * depth

    def test_given_depth_zero_then_no_call_at_all(self):
        fake = FakeDataZone()
        chain(fake, 2)
        assert walk(fake, depth=0) == []
        assert fake.calls == []

    def test_given_direct_dataset_edges_then_each_is_a_hop(self):
        # Given: table -> a -> b -> c (native lineage without a process node between)
        fake = FakeDataZone()
        table_root(fake)
        for upstream, downstream in (("table", "a"), ("a", "b"), ("b", "c")):
            fake.node(downstream)
            fake.edge(upstream, downstream)
        # When / Then
        assert walk(fake, depth=2) == [("a", 1), ("b", 2)]

    def test_given_a_node_reached_by_two_paths_then_it_is_listed_once_at_its_fewest_hops(self):
        # Given: table -> x -> z (z 2 steps away, found first) and table -> run -> z (1 step away)
        fake = FakeDataZone()
        table_root(fake)
        for node in ("x", "z"):
            fake.node(node)
        fake.node("run", RUN)
        fake.edge("table", "x", "run")
        fake.edge("x", "z")
        fake.edge("run", "z")
        # When
        found = walk(fake, depth=3)
        # Then
        assert found == [("x", 1), ("run", 1), ("z", 1)]
        assert fake.calls.count("z") == 1

    def test_given_nodes_then_their_members_come_from_datazone(self):
        fake = FakeDataZone()
        table_root(fake)
        fake.node("emr", RUN, sid="emr-job.nightly/7f1c")
        fake.edge("table", "emr")
        walker = DataZoneDownstreamWalker(fake, DOMAIN)
        assert list(walker(TABLE_ARN)) == [
            DownstreamNode("emr", RUN, 1, name="name-emr", source_identifier="emr-job.nightly/7f1c")
        ]


class TestCyclesFanOutAndCaps:
    def test_given_a_cycle_back_to_the_table_then_each_node_is_read_once_and_the_walk_ends(self):
        # Given: table -> run -> r -> run2 -> table (a reverse ETL), and r -> r2 -> r (a loop)
        fake = FakeDataZone()
        table_root(fake)
        fake.node("run", RUN)
        fake.node("run2", RUN)
        fake.node("r")
        fake.node("r2")
        fake.edge("table", "run")
        fake.edge("run", "r")
        fake.edge("r", "run2", "r2")
        fake.edge("run2", "table")
        fake.edge("r2", "r")
        # When
        found = walk(fake, depth=10)
        # Then
        assert sorted(found) == [("r", 1), ("r2", 2), ("run", 1), ("run2", 2)]
        assert sorted(fake.calls) == sorted([TABLE_ARN, "run", "r", "run2", "r2"])

    def test_given_a_fan_out_then_every_branch_is_listed(self):
        # Given: the table feeds 5 jobs, each writing 3 datasets
        fake = FakeDataZone()
        table_root(fake)
        for job in range(5):
            run = fake.node(f"run{job}", RUN)
            fake.edge("table", run)
            for out in range(3):
                fake.edge(run, fake.node(f"d{job}.{out}"))
        # When
        found = walk(fake, depth=1)
        # Then
        assert len(found) == 5 + 15
        assert {hops for _, hops in found} == {1}
        assert len(fake.calls) == 1 + 20

    def test_given_more_nodes_than_the_cap_then_it_stops_and_reports_it(self):
        # Given: 30 datasets fed by the table
        fake = FakeDataZone()
        table_root(fake)
        fake.edge("table", *(fake.node(f"d{i}") for i in range(30)))
        walker = DataZoneDownstreamWalker(fake, DOMAIN, max_nodes=10)
        # When
        found = walker(TABLE_ARN)
        # Then
        assert [n.id for n in found] == [f"d{i}" for i in range(10)]
        assert len(fake.calls) == 11
        report = walker.reports[TABLE_ARN]
        assert (report.truncated, report.complete, report.nodes, report.calls) == (True, False, 10, 11)

    def test_given_exactly_the_cap_then_the_walk_is_not_truncated(self):
        fake = FakeDataZone()
        table_root(fake)
        fake.edge("table", *(fake.node(f"d{i}") for i in range(10)))
        walker = DataZoneDownstreamWalker(fake, DOMAIN, max_nodes=10)
        assert len(walker(TABLE_ARN)) == 10
        assert walker.reports[TABLE_ARN].truncated is False

    def test_given_a_node_listing_the_maximum_of_references_then_the_report_says_it_may_have_more(self):
        fake = FakeDataZone()
        table_root(fake)
        fake.edge("table", *(fake.node(f"d{i}") for i in range(MAX_REFERENCES)))
        walker = DataZoneDownstreamWalker(fake, DOMAIN, depth=1, max_nodes=500)
        assert len(walker(TABLE_ARN)) == MAX_REFERENCES
        report = walker.reports[TABLE_ARN]
        assert (report.partial_references, report.complete) == (("table",), False)


class TestErrors:
    def test_given_no_lineage_node_for_the_table_then_nothing_downstream_and_no_error(self):
        fake = FakeDataZone()
        walker = DataZoneDownstreamWalker(fake, DOMAIN)
        assert list(walker(TABLE_ARN)) == []
        report = walker.reports[TABLE_ARN]
        assert (report.found, report.calls, report.complete) == (False, 1, True)

    def test_given_a_referenced_node_gone_when_read_then_it_is_skipped_and_counted(self):
        fake = FakeDataZone()
        table_root(fake)
        fake.node("a")
        fake.edge("table", "ghost", "a")
        walker = DataZoneDownstreamWalker(fake, DOMAIN)
        assert [n.id for n in walker(TABLE_ARN)] == ["a"]
        assert walker.reports[TABLE_ARN].vanished == 1

    @pytest.mark.parametrize("code", ["AccessDeniedException", "ThrottlingException", "ValidationException"])
    def test_given_another_error_then_it_raises(self, code: str):
        fake = FakeDataZone()
        chain(fake, 2)
        fake.fail_on["d1"] = code
        walker = DataZoneDownstreamWalker(fake, DOMAIN)
        with pytest.raises(AwsError) as caught:
            walker(TABLE_ARN)
        assert caught.value.code == code

    def test_given_one_table_failing_then_the_drift_core_warns_and_keeps_the_others(self):
        # Given: customers v2 drops `email`, which feeds two tables; the graph of one is refused
        customers = table("customers", "id", "email")
        slim = table("customers_slim", "id", "email", database="analytics")
        diff = diff_fields("AVRO", debezium.table_envelope("customers"), customers_v2_without_email())
        fake = FakeDataZone()
        fake.nodes["ok"] = (DATASET, "ok", slim.arn, ["down"])
        fake.node("down")
        fake.fail_on[customers.arn] = "AccessDeniedException"
        # When
        impact = assess_impact(diff, [customers, slim], DataZoneDownstreamWalker(fake, DOMAIN))
        # Then
        by_arn = {impacted.table_arn: impacted for impacted in impact.impacted}
        assert [n.id for n in by_arn[slim.arn].downstream] == ["down"]
        assert by_arn[customers.arn].downstream == ()
        (warning,) = impact.warnings
        assert "AccessDeniedException" in warning


def test_every_call_is_paced_by_the_limiter():
    # Given
    fake = FakeDataZone()
    chain(fake, 3)
    limiter = CountingLimiter()
    # When the walker reads through a real client (its pacing is the client's hook)
    DataZoneDownstreamWalker(wired(fake, "datazone"), DOMAIN, depth=3, limiter=limiter)(TABLE_ARN)
    # Then
    assert limiter.acquired == len(fake.calls) == 7


@pytest.mark.parametrize(
    ("depth", "max_nodes", "message"), [(-1, 10, "depth must be"), (3, 0, "max_nodes must be")]
)
def test_invalid_bounds_are_refused(depth: int, max_nodes: int, message: str):
    with pytest.raises(ValueError, match=message):
        DataZoneDownstreamWalker(FakeDataZone(), DOMAIN, depth=depth, max_nodes=max_nodes)


def test_a_full_reference_list_beyond_the_depth_is_not_reported_as_partial():
    # Given a dataset at the last hop listing the maximum of references (which the walk does not follow)
    fake = FakeDataZone()
    table_root(fake)
    fake.edge("table", fake.node("edge"))
    fake.edge("edge", *(fake.node(f"d{i}") for i in range(MAX_REFERENCES)))
    walker = DataZoneDownstreamWalker(fake, DOMAIN, depth=1)
    # When / Then
    assert [n.id for n in walker(TABLE_ARN)] == ["edge"]
    assert walker.reports[TABLE_ARN].complete
