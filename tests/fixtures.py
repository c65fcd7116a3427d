"""Shared test helpers: event fixtures (tests/events/*.json), sample settings, Lambda contexts and a clock the
test drives."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

EVENTS = Path(__file__).parent / "events"
REPO = Path(__file__).parent.parent


def load_event(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text())
    return data


CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
DOMAIN_ID = "dzd_local1234"
PROJECT_ID = "prj1234local"


def environment(**overrides: str) -> dict[str, str]:
    """A valid schema-sync / lineage environment (docs/configuration.md) with one `cdc` source."""
    env = {
        "DOMAIN_ID": DOMAIN_ID,
        "PROJECT_ID": PROJECT_ID,
        "MAPPING_PATH": "/kafka-lineage",
        "SOURCES": json.dumps(
            [
                {
                    "registryName": "cdc",
                    "clusterArn": CLUSTER_ARN,
                    "tableRule": {
                        "database": "lakehouse",
                        "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$",
                        "table": "{table}",
                    },
                }
            ]
        ),
    }
    env.update(overrides)
    return env


@dataclass
class FakeContext:
    """The Lambda context as Powertools and the handlers read it, with a deadline the test controls."""

    function_name: str = "schema-sync"
    memory_limit_in_mb: int = 512
    aws_request_id: str = "00000000-0000-4000-8000-000000000000"
    remaining_ms: int = 900_000
    invoked_function_arn: str = ""

    def __post_init__(self) -> None:
        # The function's own ARN: follow-up invocations go to it.
        if not self.invoked_function_arn:
            self.invoked_function_arn = f"arn:aws:lambda:eu-west-1:123456789012:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


class CountdownContext(FakeContext):
    """A Lambda context whose deadline is `seconds` from its creation, counted down by `clock` (the real
    monotonic clock unless a test gives its `VirtualClock`'s)."""

    def __init__(
        self,
        seconds: float,
        request_id: str = FakeContext.aws_request_id,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(aws_request_id=request_id)
        self.clock = clock
        self.deadline = clock() + seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - self.clock()) * 1000))


MIN_SLEEP_SECONDS = 1e-6


class VirtualClock:
    """A clock that moves only when the code waits: `sleep(s)` moves it on by `s` and returns at once.

    Installed (`install`) as the functions' clock (kafka_lineage.model.clock), it is what their deadlines,
    pacing (RateLimiter) and bounded waits read, and a `CountdownContext` on it counts down with them. What a
    run gets done before its deadline then depends on its pacing and waits alone: computing costs no time on
    it, so a loaded machine changes nothing, and nothing really sleeps. Waits of threads that run at the same
    time add up rather than overlap (a pipelined run's stages take their sum, not their maximum).
    """

    def __init__(self, start: float = 1_000.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def monotonic(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        # Never less than a microsecond, as no real sleep returns sooner: a token bucket a rounding error
        # short of a token asks for a pause too small to move a float clock, and would ask forever.
        with self._lock:
            self._now += max(MIN_SLEEP_SECONDS, seconds)

    @classmethod
    def install(cls, monkeypatch: pytest.MonkeyPatch) -> VirtualClock:
        """A new virtual clock, as the functions' clock until the test ends."""
        from kafka_lineage.model import clock

        virtual = cls()
        monkeypatch.setattr(clock, "monotonic", virtual.monotonic)
        monkeypatch.setattr(clock, "sleep", virtual.sleep)
        return virtual
