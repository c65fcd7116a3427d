"""The grouped checkpoint saver: writes the state of each hash group once all of its actions finished, on a
thread of its own, so that the reads, the writes and the SSM saves overlap and each state parameter is written
about once per run (the lineage emission's state; the schema sync saves whole chunks, cut on the same hash
groups, in its pipeline's save stage).

It is handed what to call: `save` writes a batch of store changes (checking the lease first, raising
`LeaseLost` when it is gone) and answers the SSM writes made; `reload` gives the store a fresh picture after
a failed save. It knows nothing of plans, actions or results: the run tells it, per finished item, the
changes to write and whether the item did work, and reads what the saver did (`SaveReport`) after `close`.

A lost lease stops every further write at once (`halted`); a save that fails twice (with a reload between)
stops them too, and the run then stops starting actions: what is not saved is redone by the next run.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from kafka_lineage.model import clock
from kafka_lineage.model.failures import LeaseLost, describe_failure
from kafka_lineage.observability import logger

Changes = dict[str, dict[str, Any] | None]  # entry key -> entry (None: remove it)


@dataclass
class SaveReport:
    """What the saver did, for the run's result."""

    writes: int = 0  # SSM writes made
    progressed: bool = False  # a group in which some item did work was saved
    lease_lost: bool = False
    error: str | None = None  # why the saves stopped, when a save failed twice (`describe_failure`)


class Checkpoints:
    """Saves each group's changes once every item of the group is done. Use as a context manager: the saver
    thread starts on entry; on exit it saves what is ready and stops."""

    def __init__(
        self,
        group_of: Mapping[str, str],
        *,
        save: Callable[[Changes], int],
        reload: Callable[[], object],
        write_seconds: Callable[[], tuple[float, float]],
    ) -> None:
        self._group_of = dict(group_of)  # item key -> its group
        self._save_changes, self._reload = save, reload
        # (cautious, fastest) seconds an SSM write takes (model.quotas.CallRates), until saves are measured.
        self._write_seconds = write_seconds
        self._measured: float | None = None  # seconds per write the saves took, on average
        self.report = SaveReport()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._open = Counter(self._group_of.values())  # items not done, per group
        self._changes: dict[str, Changes] = {}
        self._worked: dict[str, bool] = {}  # group -> some item in it did work
        self._ready: list[str] = []
        self._closed = False
        self._saving = 0  # groups in the save under way
        self.halted = False
        self._thread = threading.Thread(target=self._run, name="state-saver", daemon=True)

    def __enter__(self) -> Checkpoints:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with self._lock:
            self._closed = True
            self._wake.notify()
        self._thread.join()

    def backlog_seconds(self) -> float:
        """What the unsaved groups (ready, being saved, or under way) still need at the pace the saves were
        measured at (a cautious guess before the first); a group none of whose items is done needs nothing
        if the run stops now."""
        with self._lock:
            under_way = sum(1 for group in self._worked if self._open[group])
            groups = len(self._ready) + self._saving + under_way
            measured = self._measured
        cautious, fastest = self._write_seconds()
        return groups * (cautious if measured is None else max(fastest, measured))

    def done(self, key: str, changes: Changes, worked: bool) -> None:
        """Item `key` is done: its `changes` go with its group's save, which starts once the group is done."""
        with self._lock:
            group = self._group_of[key]
            if changes:
                self._changes.setdefault(group, {}).update(changes)
            self._worked[group] = self._worked.get(group, False) or worked
            self._open[group] -= 1
            if not self._open[group]:
                self._ready.append(group)
                self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._ready and not self._closed:
                    self._wake.wait()
                if not self._ready and self._closed:
                    return
                groups, self._ready = self._ready, []
                self._saving = len(groups)
                changes: Changes = {}
                for group in groups:
                    changes.update(self._changes.pop(group, {}))
                progressed = any(self._worked.get(group) for group in groups)
            try:
                if changes and not self.halted:
                    self._save(changes)
                if progressed and not self.halted:
                    self.report.progressed = True
            finally:
                with self._lock:
                    self._saving = 0

    def _observe(self, writes: int, seconds: float) -> None:
        if writes:
            with self._lock:
                per_write = seconds / writes
                known = self._measured
                self._measured = per_write if known is None else (known + per_write) / 2

    def _save(self, changes: Changes) -> None:
        for attempt in (1, 2):
            try:
                started = clock.monotonic()
                writes = self._save_changes(changes)
                self.report.writes += writes
                self._observe(writes, clock.monotonic() - started)
                return
            except LeaseLost as error:
                logger.error("state lease lost: no further state is written", extra={"error": str(error)})
                self.halted = True
                self.report.lease_lost = True
                return
            except Exception as error:
                logger.exception("saving the state failed", extra={"attempt": attempt})
                if attempt == 2:
                    self.halted = True
                    self.report.error = describe_failure(error)
                    return
                try:
                    self._reload()  # the store needs a fresh picture after a failed save
                except Exception:
                    logger.exception("reloading the state failed")
