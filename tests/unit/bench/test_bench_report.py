"""The benchmark report: per-schema figures, ratios, the issue's targets and the printed tables."""

from __future__ import annotations

from typing import Any

import pytest

from bench import report
from bench.report import BASELINE, PROJECT, Measurement, SsmFootprint


def measurement(
    scenario: str, implementation: str, wall: float, calls: dict[str, int], **extra: Any
) -> Measurement:
    return Measurement(
        scenario=scenario, implementation=implementation, schemas=100, wall_seconds=wall, calls=calls, **extra
    )


@pytest.mark.parametrize(
    ("key", "write"),
    [
        ("glue:GetSchema", False),
        ("glue:ListSchemas", False),
        ("ssm:GetParametersByPath", False),
        ("ssm:DescribeParameters", False),
        ("datazone:Search", False),
        ("glue:BatchGetTable", False),
        ("datazone:CreateAsset", True),
        ("datazone:CreateAssetRevision", True),
        ("datazone:CreateListingChangeSet", True),
        ("datazone:PostLineageEvent", True),
        ("datazone:DeleteLineageEvent", True),
        ("ssm:PutParameter", True),
        ("events:PutEvents", True),
    ],
)
def test_reads_and_writes_are_told_apart_by_operation(key: str, write: bool) -> None:
    assert report.is_write(key) is write


def test_per_schema_figures_divide_by_the_schema_count() -> None:
    # Given 100 schemas and a run of 400 reads and 150 writes over three services
    run = measurement(
        "first_sync",
        PROJECT,
        10.0,
        {
            "glue:GetSchema": 100,
            "glue:ListSchemas": 1,
            "datazone:CreateAsset": 100,
            "ssm:PutParameter": 50,
            "ssm:GetParametersByPath": 299,
        },
    )

    # Then totals, writes and per-schema figures follow
    assert run.total_calls == 550
    assert run.writes == 150
    assert run.calls_per_schema == pytest.approx(5.5)
    assert run.writes_per_schema == pytest.approx(1.5)
    assert run.by_service() == {"datazone": 100, "glue": 101, "ssm": 349}
    data = run.to_dict()
    assert data["calls_per_schema_by_operation"]["ssm:PutParameter"] == 0.5
    assert data["calls_per_schema_by_service"]["glue"] == 1.01
    assert data["title"] == "first sync"


def test_summary_checks_each_target_against_what_was_measured() -> None:
    # Given a baseline and a project run of every scenario
    runs = [
        measurement("first_sync", BASELINE, 100.0, {"glue:GetSchema": 100}),
        measurement("first_sync", PROJECT, 20.0, {"glue:GetSchema": 100}, peak_rss_mb=120.0),
        measurement("first_sync_fast", PROJECT, 8.0, {"glue:GetSchema": 100}, tuning={"datazone_rps": 200}),
        measurement("resync_no_change", PROJECT, 1.0, {"glue:ListSchemas": 1, "ssm:GetParametersByPath": 9}),
        measurement(
            "verify", PROJECT, 5.0, {"glue:GetSchema": 100, "glue:ListSchemaVersions": 100, "x:Get": 10}
        ),
        measurement("lineage_no_change", PROJECT, 1.0, {"ssm:GetParametersByPath": 20}, peak_rss_mb=300.0),
    ]

    facts = report.summary(runs, [SsmFootprint(PROJECT, 500, {"Standard": 500}, 4000, {"assets": 500})])

    # Then: 10 calls for 100 schemas, no writes: met
    assert facts["no_change_calls_per_schema"] == 0.1
    assert facts["no_change_target_met"] is True
    # 23 no-change runs and one verify run a day, averaged per run and schema
    assert facts["daily_calls_per_schema_per_run"] == pytest.approx((23 * 10 + 210) / 24 / 100, abs=1e-4)
    # 100 s / 20 s and 100 s / 8 s; the better one decides the target
    assert facts["first_sync_speedup"] == 5.0
    assert facts["first_sync_fast_speedup"] == 12.5
    assert facts["first_sync_fast_tuning"] == {"datazone_rps": 200}
    assert facts["first_sync_speedup_target_met"] is True
    assert facts["first_sync_within_one_invocation"] is True
    assert facts["lineage_no_change_posts"] == 0
    assert facts["lineage_no_change_target_met"] is True
    # The largest peak of any project run counts
    assert facts["project_peak_rss_mb"] == 300.0
    assert facts["peak_memory_target_met"] is False
    assert facts["ssm_project"]["share_of_standard_quota"] == 0.05


def test_summary_reports_missed_targets() -> None:
    runs = [
        measurement("first_sync", BASELINE, 100.0, {}),
        measurement("first_sync", PROJECT, 50.0, {}, invocations=2),
        measurement("resync_no_change", PROJECT, 1.0, {"glue:ListSchemas": 1, "ssm:PutParameter": 1}),
        measurement("lineage_no_change", PROJECT, 1.0, {"datazone:PostLineageEvent": 4}),
    ]

    facts = report.summary(runs)

    assert facts["no_change_target_met"] is False  # one write is one too many
    assert facts["first_sync_speedup_target_met"] is False
    assert facts["first_sync_within_one_invocation"] is False
    assert facts["lineage_no_change_target_met"] is False
    assert "daily_calls_per_schema_per_run" not in facts  # no verify run measured


def test_main_table_puts_the_project_next_to_the_baseline_with_their_ratio() -> None:
    # Given a baseline first sync of 40 s and project first syncs of 10 s and 4 s
    runs = [
        measurement("first_sync_fast", PROJECT, 4.0, {"glue:GetSchema": 100}),
        measurement(
            "first_sync", PROJECT, 10.0, {"glue:GetSchema": 300}, result={"created": 100, "failed": []}
        ),
        measurement("first_sync", BASELINE, 40.0, {"glue:GetSchema": 100}),
    ]

    lines = report.main_table(runs).splitlines()

    # Then rows come in scenario order, baseline first, each project row with its ratio to the baseline
    assert lines[0].split()[:3] == ["scenario", "impl", "wall"]
    rows = [line.split() for line in lines[2:]]
    assert [row[2] for row in rows] == [
        "baseline",
        "project",
        "raised",
    ]  # "first sync" / "first sync, raised"
    assert "0.25" in lines[3]  # 10 s / 40 s
    assert "0.10" in lines[4]  # 4 s / 40 s: the raised-rate run compares with the same baseline
    assert "created 100" in lines[3]


def test_breakdown_lists_every_operation_for_both_implementations() -> None:
    runs = [
        measurement("resync_no_change", BASELINE, 1.0, {"glue:GetSchema": 100, "glue:ListSchemas": 1}),
        measurement("resync_no_change", PROJECT, 1.0, {"glue:ListSchemas": 1, "ssm:PutParameter": 2}),
    ]

    text = report.breakdown(runs)

    lines = text.splitlines()
    assert lines[0].split()[-2:] == ["baseline", "project"]
    by_key = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert by_key["glue:GetSchema"] == ["1.0000"]  # the project never called it: blank
    assert by_key["glue:ListSchemas"] == ["0.0100", "0.0100"]
    assert by_key["ssm:PutParameter"] == ["(write)", "0.0200"]
    assert by_key["total"] == ["1.0100", "0.0300"]


def test_render_joins_header_table_targets_and_breakdown() -> None:
    runs = [
        measurement("resync_no_change", PROJECT, 1.0, {"glue:ListSchemas": 1}),
    ]
    facts = report.summary(runs)

    text = report.render(runs, facts, ["kafka-lineage benchmark"])

    assert text.startswith("kafka-lineage benchmark\n")
    assert "no-change resync: 0.01 calls/schema, 0 writes (target met)" in text
    assert "no-change resync: calls per schema" in text


def test_pacing_floor_is_each_quotas_calls_over_the_runs_ceiling_for_it() -> None:
    # Given ceilings of Glue and DataZone 20/s and SSM writes 2/s (below our reading of their quota, 10/s),
    # and a run that raised DataZone's ceiling
    defaults = {"glue_rps": 20.0, "datazone_rps": 20.0, "ssm_write_rps": 2.0, "max_concurrency": 8.0}
    run = measurement(
        "first_sync",
        PROJECT,
        90.0,
        {
            "glue:GetSchema": 100,
            "glue:ListSchemas": 1,
            "datazone:CreateAsset": 100,
            "datazone:CreateListingChangeSet": 100,
            "ssm:PutParameter": 90,
            "ssm:GetParametersByPath": 50,  # SSM's reads: their documented 40/s, shared
            "events:PutEvents": 4,  # no quota paced
        },
        tuning={"datazone_rps": 100},
    )

    # Then each operation (each quota) is its own bucket, at the run's ceiling for it
    assert run.pacing_floor(defaults) == {
        "glue:GetSchema": 5.0,
        "glue:ListSchemas": 0.05,
        "datazone:CreateAsset": 1.0,
        "datazone:CreateListingChangeSet": 1.0,
        "ssm:parameter-writes": 45.0,
        "ssm:parameter-reads": 1.25,
    }
    # And the quota floor is at AWS's rates whatever the run's ceilings: the slowest, SSM's writes, 9 s
    assert run.documented_floor()["datazone:CreateAsset"] == 5.0
    assert run.documented_floor()["ssm:parameter-writes"] == 9.0
    assert run.documented_floor_seconds() == 9.0
    assert run.pacing_efficiency() == pytest.approx(0.1)


DEFAULTS = {"glue_rps": 20.0, "datazone_rps": 20.0, "ssm_write_rps": 10.0, "max_concurrency": 8.0}


def test_pacing_efficiency_is_the_slowest_quotas_floor_over_the_wall_time() -> None:
    # Given a first sync whose DataZone calls take 5 s per operation at 20/s (in parallel), SSM writes 4 s
    # at 10/s; it took 6.25 s
    run = measurement(
        "first_sync",
        PROJECT,
        6.25,
        {"datazone:CreateAsset": 100, "datazone:CreateListingChangeSet": 100, "ssm:PutParameter": 40},
    )

    # Then the floor is the slowest quota's 5 s, and the efficiency 5 / 6.25
    assert run.documented_floor_seconds() == 5.0
    assert run.pacing_efficiency(DEFAULTS) == pytest.approx(0.8)
    # And a run that paced nothing, or took no time, has no efficiency
    assert (
        measurement("first_sync", PROJECT, 5.0, {"glue:ListSchemas": 0}).pacing_efficiency(DEFAULTS) is None
    )
    assert (
        measurement("first_sync", PROJECT, 0.0, {"ssm:PutParameter": 4}).pacing_efficiency(DEFAULTS) is None
    )


def test_the_quota_floor_counts_the_work_done_at_what_the_neighbour_leaves() -> None:
    # Given a run next to a neighbour taking half of every quota: 100 CreateAsset done (20/s documented),
    # 20 more attempts throttled, 100 CreateListingChangeSet (no published rate: our reading, 20/s)
    calls = {"datazone:CreateAsset": 120, "datazone:CreateListingChangeSet": 100, "glue:GetSchema": 50}
    done = {"datazone:CreateAsset": 100, "datazone:CreateListingChangeSet": 100, "glue:GetSchema": 50}
    run = measurement(
        "first_sync_neighbour", PROJECT, 12.5, calls, ok_calls=done, neighbour=0.5, throttled_calls=20
    )

    # Then each quota's floor is the work over half its rate, the slowest 10 s, and 20 of 270 calls throttled
    assert run.documented_floor() == {
        "datazone:CreateAsset": 10.0,
        "datazone:CreateListingChangeSet": 10.0,
        "glue:GetSchema": 5.0,
    }
    assert run.pacing_efficiency() == pytest.approx(0.8)
    assert run.throttled_share == pytest.approx(20 / 270)
    assert report.DOCUMENTED_QUOTAS["datazone:CreateAssetRevision"] == 20.0
    assert report.DOCUMENTED_QUOTAS["datazone:DeleteAsset"] == 20.0
    assert "datazone:CreateListingChangeSet" not in report.DOCUMENTED_QUOTAS


def test_repeats_count_the_same_request_made_again_across_invocations() -> None:
    # Given the calls of two invocations: the second reads the listing again, re-reads one schema, rewrites
    # one parameter with the same value, writes another with a new value and creates a new asset
    calls = [
        ["glue:ListSchemas", "", "l1"],
        ["glue:GetSchema", "", "s1"],
        ["ssm:PutParameter", "/m/assets/00-0", "p1"],
        ["datazone:CreateAsset", "", "a1"],
        ["glue:ListSchemas", "", "l1"],
        ["glue:GetSchema", "", "s1"],
        ["ssm:PutParameter", "/m/assets/00-0", "p1"],
        ["ssm:PutParameter", "/m/assets/00-0", "p2"],
        ["datazone:CreateAsset", "", "a2"],
        ["unrecorded:GetSchema", "", "x"],
        ["unrecorded:GetSchema", "", "x"],
        ["lambda:Invoke", "", "follow-up"],
        ["lambda:Invoke", "", "follow-up"],
    ]

    found = report.repeats(calls)

    # Then one repeated write (the identical PutParameter) and two repeated reads; an update is not a
    # repeat, nor is handing the run on with the same event twice (a lineage follow-up's)
    assert found.writes == 1
    assert found.reads == 2
    assert found.write_samples == ("ssm:PutParameter /m/assets/00-0",)
    assert report.written_parameters(calls) == {"/m/assets/00-0"}


def test_ssm_writes_per_parameter_divide_the_write_calls_by_the_parameters_left() -> None:
    # Given 915 SSM writes (puts and deletes) for 254 parameters left
    run = measurement(
        "first_sync",
        PROJECT,
        1.0,
        {"ssm:PutParameter": 910, "ssm:DeleteParameter": 5, "ssm:GetParametersByPath": 40},
        final_parameters=254,
    )

    assert run.ssm_writes == 915
    assert run.ssm_writes_per_parameter == pytest.approx(915 / 254)
    assert measurement("first_sync", PROJECT, 1.0, {"ssm:PutParameter": 1}).ssm_writes_per_parameter is None


def test_cpu_per_item_is_per_schema_for_syncs_and_per_emitted_topic_for_lineage() -> None:
    # Given per-format runs: a sync of 100 schemas using 0.5 s and a lineage run emitting 80 topics in 1.2 s
    sync = measurement(report.FORMAT_SYNC, PROJECT, 3.0, {}, cpu_seconds=0.5, data_format="PROTOBUF")
    lineage = measurement(
        report.FORMAT_LINEAGE,
        PROJECT,
        3.0,
        {},
        cpu_seconds=1.2,
        data_format="PROTOBUF",
        result={"emitted": [{"topic": "t"}] * 5, "emittedTotal": 80},
    )
    avro = measurement(report.FORMAT_SYNC, PROJECT, 3.0, {}, cpu_seconds=2.0, data_format="AVRO")

    # Then 5 ms per schema, 15 ms per emitted topic (a cut list counts in full), by format
    assert sync.cpu_ms_per_item == pytest.approx(5.0)
    assert lineage.cpu_ms_per_item == pytest.approx(15.0)
    assert sync.title == "sync, PROTOBUF only"
    assert report.cpu_by_format([sync, lineage, avro]) == {
        "AVRO": {"sync": 20.0},
        "PROTOBUF": {"sync": 5.0, "lineage": 15.0},
    }
    facts = report.summary([sync, lineage, avro])
    assert facts["cpu_target_met"] is False  # 20 ms and 15 ms are over 10


def test_summary_checks_pacing_ssm_writes_and_the_checkpointed_sync() -> None:
    # Given a first sync at 0.18 efficiency writing 1.1x its parameters, a lineage run at 0.25, and a
    # checkpointed sync that converged in 12 invocations with no repeated write
    runs = [
        measurement("first_sync", PROJECT, 10.0, {"ssm:PutParameter": 18}, final_parameters=16),
        measurement("lineage_first", PROJECT, 10.0, {"datazone:PostLineageEvent": 50}),
        measurement(report.FORMAT_SYNC, PROJECT, 1.0, {"ssm:PutParameter": 9}, final_parameters=3),
        measurement(
            "first_sync_checkpointed",
            PROJECT,
            60.0,
            {"ssm:PutParameter": 18},
            invocations=12,
            repeated_reads=30,
            result={"created": 4},
        ),
    ]

    facts = report.summary(runs, tuning_defaults=DEFAULTS)

    assert facts["pacing_efficiency"] == {
        "first_sync": 0.18,  # 18 writes at 10/s (our reading of SSM's unpublished write rate) in 10 s
        "lineage_first": 0.25,  # 50 posts at 20/s (our reading of PostLineageEvent's unpublished rate)
        "first_sync_checkpointed": 0.03,
    }
    assert facts["pacing_efficiency_target_met"] is False
    assert facts["ssm_writes_per_parameter"] == {"first_sync": 1.125}
    assert facts["ssm_writes_target_met"] is True
    assert facts["checkpointed"]["invocations"] == 12
    assert facts["checkpointed"]["converged"] is True
    assert facts["checkpointed_target_met"] is True
    text = "\n".join(report.summary_lines(facts))
    assert (
        "first sync, short deadline: 12 invocations, converged, created 4, 0 repeated writes, "
        "30 repeated reads (target met)"
    ) in text


def test_every_chain_under_a_short_deadline_is_checked_and_one_that_repeats_a_write_misses_the_target() -> (
    None
):
    # Given a checkpointed sync that converged, and a checkpointed lineage run next to a neighbour that
    # repeated a write
    runs = [
        measurement("first_sync_checkpointed", PROJECT, 60.0, {}, invocations=3),
        measurement(
            "lineage_first_checkpointed_neighbour",
            PROJECT,
            90.0,
            {},
            invocations=4,
            repeated_writes=1,
            repeated_write_samples=["datazone:PostLineageEvent x"],
        ),
    ]

    facts = report.summary(runs)

    # Then both are reported, and the target is missed
    assert facts["checkpointed"]["invocations"] == 3
    assert facts["lineage_first_checkpointed_neighbour"]["repeated_writes"] == 1
    assert facts["checkpointed_target_met"] is False
    text = "\n".join(report.summary_lines(facts))
    assert "lineage first run, short deadline, neighbour: 4 invocations, converged" in text


def test_a_checkpointed_sync_that_repeats_a_write_or_stops_short_misses_its_target() -> None:
    repeated = measurement(
        "first_sync_checkpointed",
        PROJECT,
        1.0,
        {},
        repeated_writes=2,
        repeated_write_samples=["ssm:PutParameter /x"],
    )
    stopped = measurement(
        "first_sync_checkpointed", PROJECT, 1.0, {}, result={"incomplete": True, "remaining": 3}
    )

    assert report.summary([repeated])["checkpointed_target_met"] is False
    assert report.summary([stopped])["checkpointed"]["converged"] is False
    assert report.summary([stopped])["checkpointed_target_met"] is False


def test_the_new_tables_render_each_project_run() -> None:
    runs = [
        measurement("first_sync", BASELINE, 10.0, {"ssm:PutParameter": 100}),
        measurement(
            "first_sync", PROJECT, 50.0, {"ssm:PutParameter": 80}, final_parameters=40, repeated_reads=3
        ),
        measurement(report.FORMAT_SYNC, PROJECT, 3.0, {}, cpu_seconds=0.5, data_format="JSON"),
    ]

    writes = report.writes_table(runs).splitlines()
    pacing = report.pacing_table(runs, DEFAULTS).splitlines()
    cpu = report.cpu_table(runs, {"JSON": 0.4, "AVRO": 0.3}).splitlines()

    # Then only project runs are listed, with their figures
    assert len(writes) == 4
    assert writes[2].split()[-6:] == ["1", "80", "40", "2.00", "0", "3"]
    # wall, quota floor, the slowest quota, efficiency, ceiling floor, throttled, calls/schema
    assert pacing[2].split()[-7:] == [
        "50.00",
        "8.00",
        "ssm:parameter-writes",
        "0.16",
        "8.00",
        "0.00%",
        "0.800",
    ]
    assert [line.split() for line in cpu[2:]] == [["AVRO", "0.30"], ["JSON", "0.40", "5.00"]]
    text = report.render(runs, report.summary(runs, tuning_defaults=DEFAULTS), [], DEFAULTS, {"JSON": 0.4})
    assert "SSM writes and repeated requests" in text
    assert "CPU by data format (ms):" in text


def test_the_cpu_target_is_on_parsing_and_lineage_the_sync_is_shown_beside_them() -> None:
    # Given a sync at 20 ms per schema (its calls' own cost), lineage at 5 ms per topic, parsing at 2 ms
    sync = measurement(report.FORMAT_SYNC, PROJECT, 3.0, {}, cpu_seconds=2.0, data_format="AVRO")
    lineage = measurement(
        report.FORMAT_LINEAGE, PROJECT, 3.0, {}, cpu_seconds=0.5, data_format="AVRO", result={"emitted": 100}
    )

    facts = report.summary([sync, lineage], parse_ms={"AVRO": 2.0, "JSON": 12.5})

    # Then the table holds all three, and only parsing (JSON over 10 ms here) decides the target
    assert facts["cpu_ms_per_item_by_format"] == {
        "AVRO": {"parse": 2.0, "sync": 20.0, "lineage": 5.0},
        "JSON": {"parse": 12.5},
    }
    assert facts["cpu_target_met"] is False
    assert report.summary([sync, lineage], parse_ms={"AVRO": 2.0})["cpu_target_met"] is True
