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


def test_pacing_floor_is_each_paced_services_calls_over_its_configured_rate() -> None:
    # Given the defaults (glue 20/s, DataZone 10/s, SSM writes 2/s) and a run that raised DataZone's rate
    defaults = {"glue_rps": 20.0, "datazone_rps": 10.0, "ssm_write_rps": 2.0, "max_concurrency": 8.0}
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
            "ssm:GetParametersByPath": 50,  # reads are not paced
        },
        tuning={"datazone_rps": 100},
    )

    floor = run.pacing_floor(defaults)

    assert floor == {"glue": 5.05, "datazone": 2.0, "ssm writes": 45.0}
    table = report.pacing_table([run], defaults).splitlines()
    assert table[2].split()[-4:] == ["5.05", "2.00", "45.00", "52.05"]
