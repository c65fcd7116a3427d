"""Where a paced run's time went: its slowest quota bucket's lead-in, idle time and tail."""

from __future__ import annotations

from bench import run, timeline


def test_lead_in_idle_and_tail_of_the_slowest_bucket() -> None:
    # Given a 10 s run whose SSM parameter writes start at 2 s, overlap, pause 1.5 s, and end 1 s early
    spans = [
        ("glue:GetSchema", 0.0, 0.5),
        ("ssm:PutParameter", 2.0, 3.0),
        ("ssm:PutParameter", 2.5, 4.0),
        ("ssm:DeleteParameter", 5.5, 6.0),
        ("datazone:CreateAsset", 6.0, 8.0),
        ("ssm:PutParameter", 6.0, 9.0),
    ]

    # When its writes are put on the timeline
    spent = timeline.timeline(spans, "ssm:parameter-writes", wall=10.0)

    # Then the lead-in is 2 s, the idle time 1.5 s (overlapping calls count once) and the tail 1 s
    assert spent is not None
    assert (spent.calls, spent.lead_in, spent.idle, spent.tail) == (4, 2.0, 1.5, 1.0)
    assert "first call at 2.00 s" in spent.describe()


def test_a_bucket_without_calls_has_no_timeline_and_the_slowest_is_the_longest_floor() -> None:
    assert timeline.timeline([("glue:GetSchema", 0.0, 1.0)], "ssm:parameter-writes", wall=1.0) is None
    assert timeline.slowest({"glue:GetSchema": 10.0, "ssm:parameter-writes": 14.5}) == "ssm:parameter-writes"
    assert timeline.slowest({}) is None


def test_the_spans_of_a_checkpointed_run_follow_each_other_on_one_clock() -> None:
    # Given two invocations of 1 s and 2 s, each with one call
    answers = iter(
        [
            {
                "wall_seconds": 1.0,
                "peak_rss_mb": 1.0,
                "result": {"incomplete": True},
                "spans": [["a:Get", 0.2, 0.4]],
            },
            {"wall_seconds": 2.0, "peak_rss_mb": 1.0, "result": {}, "spans": [["a:Get", 0.5, 0.6]]},
        ]
    )

    # When the run is followed to its end
    done = run.until_done(lambda: next(answers), max_invocations=5)

    # Then the second invocation's call stands after the first invocation's second
    assert done.spans == [("a:Get", 0.2, 0.4), ("a:Get", 1.5, 1.6)]
