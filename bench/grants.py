"""Subscription grants: what the subscription-grants function costs, on the local stand-ins with AWS's
request-rate quotas enforced.

    .venv/bin/python -m bench.grants                           # 100 grants of 10 roles (about 2 minutes)
    .venv/bin/python -m bench.grants --grants 1000 --roles 50  # the full size (about 20 minutes, paced)

Scenarios (`--scenarios`, all by default):
- `grant_one`: one grant, from its "Subscription Grant Requested" event to GRANTED, in a domain of no other
  grant: the DataZone and IAM calls it makes (target at most 12);
- `grants_reconcile`: a reconciling run (`{}`) over `--grants` pending grants of `--roles` roles (each role
  its own project, environment and subscription target; the grants spread evenly over the topics), chained
  across invocations as the function hands on when its deadline (`--deadline-seconds`) comes. Its
  **efficiency** is the floor AWS's quotas set on its calls (each quota in parallel: per operation, the
  successful calls over its rate; DataZone's subscription calls 3 a second, kafka_lineage/model/quotas.py)
  over the wall time (target at least 0.8);
- `grants_noop`: the same reconciling run again, with nothing to do: its IAM writes and
  UpdateSubscriptionGrantStatus calls (target 0 each).

The stand-ins run in this process (their quotas on the real clock), and the handler's `run` is called
directly with a Lambda-like context; follow-up invocations are made by this harness. Seeding (schema-sync
publishing the topics, the consumers, the subscriptions) happens with the quotas off and is not measured.
Nothing is asserted here (tests/integration/access asserts); the figures are printed, and `--out` writes them
as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")

SCENARIOS = ("grant_one", "grants_reconcile", "grants_noop")
IAM_WRITES = frozenset(
    {
        "iam:PutRolePolicy",
        "iam:DeleteRolePolicy",
        "iam:CreatePolicy",
        "iam:CreatePolicyVersion",
        "iam:DeletePolicyVersion",
        "iam:AttachRolePolicy",
        "iam:DetachRolePolicy",
        "iam:DeletePolicy",
    }
)
STATUS = "datazone:UpdateSubscriptionGrantStatus"
AVRO = json.dumps({"type": "record", "name": "Value", "fields": [{"name": "id", "type": "int"}]})
ROLE_PATH = "/analytics/"


@dataclass
class Context:
    """What the handler reads of Lambda's context; the deadline runs on the real clock."""

    deadline_seconds: float
    function_name: str = "subscription-grants"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:eu-west-1:123456789012:function:subscription-grants"
    aws_request_id: str = "00000000-0000-4000-8000-00000grants1"
    started: float = field(default_factory=time.monotonic)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline_seconds - (time.monotonic() - self.started)) * 1000))


@dataclass
class Measured:
    scenario: str
    wall_seconds: float
    invocations: int
    calls: Counter[str]
    ok_calls: Counter[str]
    throttled: int
    result: dict[str, Any]

    @property
    def datazone_and_iam(self) -> int:
        return sum(n for key, n in self.calls.items() if key.startswith(("datazone:", "iam:")))

    def floor(self) -> dict[str, float]:
        from bench.report import quota_buckets

        return {name: round(n / rate, 2) for name, (_, _, rate, n) in quota_buckets(self.ok_calls).items()}

    def floor_seconds(self) -> float:
        return max(self.floor().values(), default=0.0)

    def efficiency(self) -> float | None:
        floor = self.floor_seconds()
        return round(floor / self.wall_seconds, 3) if floor > 0 and self.wall_seconds > 0 else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "wallSeconds": round(self.wall_seconds, 2),
            "invocations": self.invocations,
            "calls": dict(sorted(self.calls.items())),
            "datazoneAndIamCalls": self.datazone_and_iam,
            "iamWrites": sum(n for key, n in self.calls.items() if key in IAM_WRITES),
            "statusUpdates": self.calls.get(STATUS, 0),
            "throttled": self.throttled,
            "floorSeconds": self.floor_seconds(),
            "floorByQuota": self.floor(),
            "efficiency": self.efficiency(),
            "counts": self.result.get("counts", {}),
        }


class GrantsBench:
    def __init__(self, args: argparse.Namespace) -> None:
        from local.standins import LocalAws

        self.args = args
        self.aws = LocalAws().start()
        self.topics: list[str] = []

    # ------------------------------------------------------------------------------------------ the world
    def world(self, topics: int) -> None:
        """A fresh domain whose `topics` topics schema-sync published; ACCESS admits the bench's roles."""
        from local import world
        from schema_sync.handler import handler

        self.aws.quotas.disable()
        self.aws.reset()
        world.bootstrap_catalog(self.aws.datazone)
        self.aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
        world.create_registry("cdc")
        self.topics = [f"bench.grants.topic_{n:04d}" for n in range(topics)]
        for topic in self.topics:
            world.register("cdc", world.SchemaSpec(topic, "AVRO", AVRO))
        # schema-sync publishes the topics fast (seeding); the grants function paces by its own quotas.
        tuning = {"datazone_rps": 500, "glue_rps": 500, "ssm_write_rps": 500}
        os.environ.update(world.environment([world.source_config()], tuning))
        os.environ["ACCESS"] = json.dumps({"consumerRoles": [f"arn:aws:iam::*:role{ROLE_PATH}*"]})
        handler({}, Context(900.0, function_name="schema-sync"))
        os.environ.pop("TUNING", None)

    def consumers(self, roles: int, grants: int) -> None:
        """`roles` roles, each its own project's target, subscribed to `grants`/`roles` topics each."""
        from local import access_world

        per_role = max(1, grants // roles)
        if per_role > len(self.topics):
            raise SystemExit(f"{per_role} grants a role need as many topics; {len(self.topics)} published")
        for index in range(roles):
            role = access_world.consumer_role(f"bench-reader-{index:03d}", path=ROLE_PATH)
            consumer = access_world.add_consumer(self.aws.datazone, f"prjbench{index:04d}", [role])
            for offset in range(per_role):
                topic = self.topics[(index + offset) % len(self.topics)]
                access_world.subscribe(self.aws.datazone, consumer, topic)

    # ------------------------------------------------------------------------------------------ measuring
    def invoke(self, scenario: str, event: dict[str, Any]) -> Measured:
        """Invoke until the run is complete (a follow-up for each hand-on), with the quotas on."""
        from kafka_lineage.engine.function import Function
        from subscription_grants.handler import GrantsFailed
        from subscription_grants.wiring import Wiring

        self.aws.quotas.enable(0.0)
        self.aws.calls.clear()
        handed: list[dict[str, Any]] = []

        def hand_on(_function_arn: str, follow_up: dict[str, Any]) -> bool:
            handed.append(follow_up)
            return True

        invocations, result = 0, {}
        started = time.perf_counter()
        payload: dict[str, Any] | None = event
        function = Function(Wiring(hand_on=hand_on), GrantsFailed)  # the handler, without its log set-up
        while payload is not None and invocations < self.args.max_invocations:
            handed.clear()
            result = function(payload, Context(self.args.deadline_seconds))
            invocations += 1
            payload = handed[0] if handed else None
        wall = time.perf_counter() - started
        throttled = len(self.aws.quotas.throttled)
        self.aws.quotas.disable()
        return Measured(
            scenario,
            wall,
            invocations,
            Counter(self.aws.call_counts()),
            Counter(self.aws.call_counts(ok=True)),
            throttled,
            result,
        )

    def grant_one(self) -> Measured:
        from local import access_world, world

        self.world(1)
        role = access_world.consumer_role("bench-one-reader", path=ROLE_PATH)
        consumer = access_world.add_consumer(self.aws.datazone, "prjbenchone01", [role])
        # The event as EventBridge delivers it (its whole envelope: the function refuses a partial one).
        catcher = world.BusCatcher("aws.datazone", "Subscription Grant Requested")
        access_world.subscribe(self.aws.datazone, consumer, self.topics[0])
        [event] = catcher.drain()
        return self.invoke("grant_one", event)

    def run(self) -> list[Measured]:
        wanted = set(self.args.scenarios)
        found: list[Measured] = []
        if "grant_one" in wanted:
            found.append(self.grant_one())
        if wanted & {"grants_reconcile", "grants_noop"}:
            per_role = max(1, self.args.grants // self.args.roles)
            self.world(max(per_role, self.args.topics))
            self.consumers(self.args.roles, self.args.grants)
            found.append(self.invoke("grants_reconcile", {}))
            if "grants_noop" in wanted:
                found.append(self.invoke("grants_noop", {}))
            if "grants_reconcile" not in wanted:
                found = [m for m in found if m.scenario != "grants_reconcile"]
        return found

    def close(self) -> None:
        self.aws.stop()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.grants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--grants", type=int, default=100, help="pending grants of the reconciling run")
    parser.add_argument("--roles", type=int, default=10, help="consumer roles they are spread over")
    parser.add_argument("--topics", type=int, default=20, help="topics published (at least grants/roles)")
    parser.add_argument("--deadline-seconds", type=float, default=900.0, help="each invocation's deadline")
    parser.add_argument("--max-invocations", type=int, default=50, help="invocations allowed per scenario")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help=f"of {', '.join(SCENARIOS)}")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    args.scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = set(args.scenarios) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios {sorted(unknown)}; known: {', '.join(SCENARIOS)}")
    if args.grants < 1 or args.roles < 1 or args.roles > args.grants:
        parser.error("--grants and --roles must be positive, with at least one grant a role")
    return args


def render(measured: Sequence[Measured]) -> str:
    lines = []
    for m in measured:
        d = m.as_dict()
        lines.append(
            f"{m.scenario}: {d['datazoneAndIamCalls']} DataZone+IAM calls ({sum(m.calls.values())} in all), "
            f"{d['iamWrites']} IAM writes, {d['statusUpdates']} UpdateSubscriptionGrantStatus, "
            f"{m.invocations} invocation(s), {d['wallSeconds']} s wall, floor {d['floorSeconds']} s, "
            f"efficiency {d['efficiency']}, throttled {m.throttled}; counts {d['counts']}"
        )
        lines.append(f"    calls: {d['calls']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    # The functions' packages come from the path the Makefile sets (PYTHONPATH=lambdas:.), as for every bench.
    args = parse_args(argv)
    bench = GrantsBench(args)
    try:
        measured = bench.run()
    finally:
        bench.close()
    print(render(measured))
    if args.out is not None:
        args.out.write_text(json.dumps([m.as_dict() for m in measured], indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
