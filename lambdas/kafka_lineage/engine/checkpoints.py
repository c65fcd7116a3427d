"""The grouped checkpoint saver, the engine's one saver of a run's state: it writes the state of each hash
group once all of its items are done, on a thread of its own, so that the reads, the writes and the SSM
saves overlap and each state parameter is written about once per run. Both runs save through it: the
lineage emission hands it each action as it ends (engine/stream.py, groups known from the start), the schema
sync each chunk once applied (engine/pipeline.py: a chunk is whole hash groups, so it is one group here,
added as the pipeline cuts it).

It is handed what to call: `save` writes a batch of store changes (checking the lease first, raising
`LeaseLost` when it is gone) and answers the SSM writes made; `reload` gives the store a fresh picture after
a failed save. It knows nothing of plans, actions or results: the run tells it, per finished item, the
changes to write and whether the item did work, and reads what the saver did (`SaveReport`) after `close`.
A run that must act on each save (the sync reports a chunk, then puts its events, only once it is saved)
gives a `SaveListener`: the saver thread calls it before and after each save, with the tokens the groups
were done with, so that thread alone records what was saved.

A lost lease stops every further write at once (`halted`). The run's `SavePolicy` says the rest. The
lineage emission's (`RETRY_THEN_HALT`) saves every group ready in one save, retries a failed save once after
a reload and then stops every write too (the run then stops starting actions). The schema sync's
(`GROUP_BY_GROUP`) saves one group (a chunk) a save, so a chunk is saved, reported and failed whole, and a
failed save fails that chunk's items: the saver reloads and goes on. What is not saved is redone by the
next run.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol

from kafka_lineage.model import clock
from kafka_lineage.model.failures import LeaseLost, describe_failure
from kafka_lineage.observability import logger

Changes = dict[str, dict[str, Any] | None]  # entry key -> entry (None: remove it)
Entries = dict[str, Any]  # entry key -> what the run's store saves for it (None: remove it)


@dataclass
class SaveReport:
    """What the saver did, for the run's result."""

    writes: int = 0  # SSM writes made
    progressed: bool = False  # a group in which some item did work was saved
    lease_lost: bool = False
    error: str | None = None  # why the saves stopped, when a save failed twice (`describe_failure`)
    # The last group (in the run's order) through which every item was done and every group saved: a
    # follow-up need not look at them again (engine/stream.py; None: not even the first).
    done_through: str | None = None
    finished: bool = False  # every item was done (none deferred) and every group saved


@dataclass(frozen=True)
class SavePolicy:
    """How the saver saves: every ready group in one save (`together`) or one a save, and what a failed save
    does: it is tried `attempts` times (a reload after each failure), then the saver stops every further
    write (`halt`) or fails that save's groups alone and goes on."""

    together: bool
    attempts: int
    halt: bool


RETRY_THEN_HALT = SavePolicy(together=True, attempts=2, halt=True)
GROUP_BY_GROUP = SavePolicy(together=False, attempts=1, halt=False)


class SaveListener(Protocol):
    """Told by the saver thread, in the order the groups were saved, of each save: `saving` before it, and
    `saved` after it, with the save's writes (None: not saved, `error` why; a group with nothing to write
    is saved with 0)."""

    def saving(self, tokens: Sequence[Any]) -> None: ...

    def saved(self, tokens: Sequence[Any], writes: int | None, error: Exception | None) -> None: ...


class Checkpoints:
    """Saves each group's changes once every item of the group is done. Use as a context manager: the saver
    thread starts on entry; on exit it saves what is ready and stops."""

    def __init__(
        self,
        group_of: Mapping[str, str],
        *,
        save: Callable[[Entries], int],
        reload: Callable[[], object],
        write_seconds: Callable[[], tuple[float, float]],
        listener: SaveListener | None = None,
        policy: SavePolicy = RETRY_THEN_HALT,
    ) -> None:
        self._group_of = dict(group_of)  # item key -> its group
        self._save_changes, self._reload = save, reload
        # (cautious, fastest) seconds an SSM write takes (model.quotas.CallRates), until saves are measured.
        self._write_seconds = write_seconds
        self._listener, self._policy = listener, policy
        self._measured: float | None = None  # seconds per write the saves took, on average
        self.report = SaveReport()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._open = Counter(self._group_of.values())  # items not done, per group
        self._changes: dict[str, Entries] = {}
        self._worked: dict[str, bool] = {}  # group -> some item in it did work
        self._tokens: dict[str, list[Any]] = {}  # group -> what its items were done with, for the listener
        self._ready: list[str] = []
        self._closed = False
        self._saving = 0  # groups in the save under way
        self._saved: set[str] = set()  # groups saved (or with nothing to save)
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

    def group_of(self, key: str) -> str:
        return self._group_of[key]

    def saved(self, group: str) -> bool:
        """Whether `group` was saved (after `close`: for good)."""
        with self._lock:
            return group in self._saved

    def done(self, key: str, changes: Mapping[str, Any], worked: bool, token: Any = None) -> None:
        """Item `key` is done: its `changes` go with its group's save, which starts once the group is done
        (`token`: what the listener is handed for it once the group is saved)."""
        with self._lock:
            self._finish(self._group_of[key], changes, worked, token)

    def add(self, group: str, changes: Mapping[str, Any], worked: bool, token: Any = None) -> None:
        """A whole group, not known when the saver was made, is done at once (the pipeline's chunk)."""
        with self._lock:
            if group in self._open:
                raise ValueError(f"group {group!r} is already known to the saver")
            self._open[group] = 1
            self._finish(group, changes, worked, token)

    def _finish(self, group: str, changes: Mapping[str, Any], worked: bool, token: Any) -> None:
        if changes:
            self._changes.setdefault(group, {}).update(changes)
        self._worked[group] = self._worked.get(group, False) or worked
        if token is not None:
            self._tokens.setdefault(group, []).append(token)
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
                taken = len(self._ready) if self._policy.together else 1
                groups, self._ready = self._ready[:taken], self._ready[taken:]
                self._saving = len(groups)
                changes: Entries = {}
                tokens: list[Any] = []
                for group in groups:
                    changes.update(self._changes.pop(group, {}))
                    tokens.extend(self._tokens.pop(group, ()))
                progressed = any(self._worked.get(group) for group in groups)
            try:
                if self._listener is not None:
                    self._listener.saving(tokens)
                writes, error = self._save(changes) if changes else (0, None)
                if progressed and writes is not None and not self.halted:
                    self.report.progressed = True
                if writes is not None:
                    with self._lock:
                        self._saved.update(groups)
                if self._listener is not None:
                    self._listener.saved(tokens, writes, error)
            finally:
                with self._lock:
                    self._saving = 0

    def _observe(self, writes: int, seconds: float) -> None:
        if writes:
            with self._lock:
                per_write = seconds / writes
                known = self._measured
                self._measured = per_write if known is None else (known + per_write) / 2

    def _save(self, changes: Entries) -> tuple[int | None, Exception | None]:
        """(the writes made, None) once saved; (None, why) when not."""
        if self.halted:
            return None, LeaseLost("the saver stopped: an earlier save lost the lease or failed")
        attempts = self._policy.attempts
        for attempt in range(1, attempts + 1):
            try:
                started = clock.monotonic()
                writes = self._save_changes(changes)
                self.report.writes += writes
                self._observe(writes, clock.monotonic() - started)
                return writes, None
            except LeaseLost as error:
                logger.error("state lease lost: no further state is written", extra={"error": str(error)})
                self.halted = True
                self.report.lease_lost = True
                return None, error
            except Exception as error:
                logger.exception("saving the state failed", extra={"attempt": attempt})
                if attempt == attempts and self._policy.halt:
                    self.halted = True
                    self.report.error = describe_failure(error)
                    return None, error
                try:
                    self._reload()  # the store needs a fresh picture after a failed save
                except Exception:
                    logger.exception("reloading the state failed")
                if attempt == attempts:
                    return None, error
        raise AssertionError("unreachable: every attempt returns")
