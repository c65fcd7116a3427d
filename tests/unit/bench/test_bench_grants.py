"""bench/grants.py: the quota floor and efficiency of a grants run, and its options (the runs themselves are
measured by hand: `python -m bench.grants`, docs/performance.md)."""

from __future__ import annotations

from collections import Counter

import pytest

from bench import grants


def test_the_floor_is_the_slowest_quota_and_iam_is_not_paced():
    # Given a run's successful calls: 200 status updates and 22 listings at DataZone's 3 a second, IAM calls
    calls = Counter(
        {
            "datazone:UpdateSubscriptionGrantStatus": 200,
            "datazone:ListSubscriptionGrants": 22,
            "datazone:GetListing": 10,
            "iam:PutRolePolicy": 10,
        }
    )
    measured = grants.Measured("grants_reconcile", 75.0, 1, calls, calls, 0, {"counts": {"granted": 100}})
    # When its floor and efficiency are read
    floor = measured.floor()
    # Then each DataZone operation is its own quota, IAM none, and the floor is the slowest: 200 / 3 s
    assert floor["datazone:UpdateSubscriptionGrantStatus"] == pytest.approx(66.67)
    assert floor["datazone:GetListing"] == pytest.approx(0.5)
    assert not any(name.startswith("iam:") for name in floor)
    assert measured.efficiency() == pytest.approx(66.67 / 75.0, abs=1e-3)
    summary = measured.as_dict()
    assert (summary["iamWrites"], summary["statusUpdates"], summary["datazoneAndIamCalls"]) == (10, 200, 242)


def test_a_run_with_no_paced_call_has_no_efficiency():
    measured = grants.Measured("grants_noop", 1.0, 1, Counter({"iam:GetRole": 3}), Counter(), 0, {})
    assert measured.efficiency() is None


@pytest.mark.parametrize(
    "argv",
    [["--scenarios", "grants_everything"], ["--grants", "5", "--roles", "10"], ["--roles", "0"]],
)
def test_options_outside_what_a_run_can_be_are_refused(argv: list[str]):
    with pytest.raises(SystemExit):
        grants.parse_args(argv)


def test_the_defaults_are_the_small_run():
    args = grants.parse_args([])
    assert (args.grants, args.roles, args.scenarios) == (100, 10, list(grants.SCENARIOS))
