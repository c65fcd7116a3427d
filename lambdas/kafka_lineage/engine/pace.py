"""How long a chunk's stages take (`Pace`), and when the applier and the saver will be free (`Timeline`):
the estimates the chunked pipeline (engine/pipeline.py) sizes its chunks by, so that every chunk it starts
is saved before the deadline.

The estimates are on the safe side (SAFETY, STAGE_SECONDS), and the timeline brings them back to the clock as
chunks really end, so they never add up over a run. Before a stage has run, its guess comes from its calls'
limiters (`CallRates`: the "read", "write" and "save" stages) and the call latency the run's first reads
measured; once it has run, from the speed it measured.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kafka_lineage.engine.order import Position
from kafka_lineage.model import clock
from kafka_lineage.model.quotas import CallRates
from kafka_lineage.model.state_layout import MAX_VALUE_BYTES

# Pacing estimates: calls per item at the configured rates.
GLUE_CALLS_PER_READ = 3  # GetSchema, ListSchemaVersions, GetSchemaVersion
DATAZONE_CALLS_PER_WRITE = 2  # CreateAsset / CreateAssetRevision / DeleteAsset + the listing change
ENTRY_BYTES = 480  # a packed state entry, rounded up
SAFETY = 1.25  # estimates are multiplied by this, plus STAGE_SECONDS per stage
STAGE_SECONDS = 0.1


class Pace:
    """How long a chunk's stages take. Before a stage has run: the larger of a cautious guess from its
    operations' limiters (`CallRates`) and what the call latency allows (calls in a row per item, items
    spread over the workers). Once it has run: the speed it measured, which follows the pace the limiters
    adapted to, never less than their ceilings allow. Estimates are on the safe side (SAFETY,
    STAGE_SECONDS)."""

    def __init__(self, rates: CallRates, workers: int, latency: float, cold: float = 0.0) -> None:
        self.rates = rates
        self.workers = workers
        self.latency = latency  # one call's round trip, as the run's first calls took
        self.cold = cold  # a client's first call of a kind (writes, the lease, events): until a save ran
        self.measured: dict[str, float] = {}
        self.writes_per_candidate = 1.0  # the share of inspected schemas that needed a DataZone write
        self._lock = threading.Lock()

    def observe(self, stage: str, units: float, seconds: float) -> None:
        if units <= 0:
            return
        with self._lock:
            per_unit = seconds / units
            known = self.measured.get(stage)
            self.measured[stage] = per_unit if known is None else (known + per_unit) / 2

    def observe_writes(self, candidates: int, writes: int) -> None:
        if candidates:
            with self._lock:
                self.writes_per_candidate = (self.writes_per_candidate + writes / candidates) / 2

    def _seconds(self, stage: str, in_a_row: int, units: float, parallel: bool) -> float:
        if units <= 0:
            return STAGE_SECONDS
        cautious, fastest = self.rates.seconds_per(_RATE_OF[stage])
        known = self.measured.get(stage)
        if known is None:
            rounds = math.ceil(units / self.workers) if parallel else units
            guess = max(units * cautious, rounds * in_a_row * self.latency)
        else:
            guess = units * max(fastest, known)
        return SAFETY * guess + STAGE_SECONDS

    def estimate(self, chunk: Sequence[tuple[Position, Any]], reads: int) -> tuple[float, float, float]:
        """(read, apply, save) seconds for `chunk`, of which `reads` items are read (the others are written
        as they are: deletions)."""
        candidates = reads
        writes = (len(chunk) - candidates) + candidates * self.writes_per_candidate
        groups = len({position.group for position, _ in chunk})
        parameters = groups + (len(chunk) * ENTRY_BYTES) // MAX_VALUE_BYTES
        return (
            self._seconds("read", GLUE_CALLS_PER_READ, candidates, parallel=True),
            self._seconds("apply", DATAZONE_CALLS_PER_WRITE, writes, parallel=True),
            # the writes of a save go one after the other, then the chunk's events
            self._seconds("save", 1, parameters, parallel=False)
            + self.latency
            + (SAFETY * self.cold if "save" not in self.measured else 0.0),
        )

    def lease_seconds(self) -> float:
        """Taking the lease and reading the asset records again: a few calls in a row."""
        return SAFETY * 4 * self.latency + STAGE_SECONDS

    def finish_seconds(self) -> float:
        """After the last save the handler still releases the lease and may invoke the follow-up."""
        return 2 * self.latency + STAGE_SECONDS


# The pipeline's stages by the name CallRates knows their calls by.
_RATE_OF = {"read": "read", "apply": "write", "save": "save"}


@dataclass
class _Planned:
    """A chunk's place on the timeline: its estimates, when its read ended (estimated, then as it did), and
    when its apply and save really started and ended (None: not yet)."""

    read_ended: float
    apply: float
    save: float
    apply_started: float | None = None
    apply_ended: float | None = None
    save_started: float | None = None
    save_ended: float | None = None


class Timeline:
    """When the applier and the saver will be free (monotonic): the estimated ends of the chunks they were
    given, brought back to the clock as those chunks really start and end. So estimates on the safe side
    never add up over a run: a run of 240 s whose chunks each take half their estimate still works for
    240 s, not 120."""

    def __init__(self) -> None:
        self._chunks: dict[int, _Planned] = {}
        self._lock = threading.Lock()

    def plan(self, number: int, read_end: float, apply: float, save: float) -> None:
        with self._lock:
            self._chunks[number] = _Planned(read_end, apply, save)
            for old in [n for n in self._chunks if n < number - 2]:
                del self._chunks[old]  # ended long ago: every later estimate starts from a newer one

    def mark(self, number: int, stage: str, moment: str) -> None:
        """`stage` ("read", "apply", "save") of chunk `number` started or ended (`moment`) now."""
        with self._lock:
            planned = self._chunks.get(number)
            if planned is not None:
                setattr(planned, f"{stage}_{moment}", clock.monotonic())

    def free_at(self) -> tuple[float, float]:
        """(apply, save): when the applier and the saver are done with every chunk given to them."""
        with self._lock:
            now = clock.monotonic()
            applied = saved = 0.0
            for number in sorted(self._chunks):
                planned = self._chunks[number]
                applied = _end(
                    planned.apply_started,
                    planned.apply_ended,
                    planned.apply,
                    max(planned.read_ended, applied),
                    now,
                )
                saved = _end(planned.save_started, planned.save_ended, planned.save, max(applied, saved), now)
            return applied, saved


def _end(started: float | None, ended: float | None, estimate: float, ready: float, now: float) -> float:
    """A stage's end for a chunk: as it happened, else its start plus its estimate (not before now: it has
    not ended), else when it can start plus its estimate."""
    if ended is not None:
        return ended
    if started is not None:
        return max(started + estimate, now)
    return ready + estimate
