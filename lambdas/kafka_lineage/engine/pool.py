"""The one worker pool of the runs: items run `workers` at a time, and each value goes back to the thread
that handed the items in (its owner), which alone records it. Workers never touch a run's result.

Before an item starts, `may_start()` is asked (in the worker, at the moment it would start): once it says no
(the deadline is near, the run was told to stop), the item is handed back as NOT_STARTED, so its owner can
count it, defer it or leave it to the follow-up invocation. An exception out of `work` is a bug, not an
item's failure (each run turns those into outcomes): the first is raised in the owner's thread once every
item handed in has ended.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import Enum
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class _NotStarted(Enum):
    NOT_STARTED = "not started"


NOT_STARTED = _NotStarted.NOT_STARTED  # the value of an item `may_start()` kept from starting


@dataclass(frozen=True)
class _Broken:
    error: BaseException


class Workers:
    """A pool of `workers` threads. Use as a context manager (or `close()`): the threads go with it.

    At most `2 * workers` items are in the threads' hands at once (running or queued): a run of thousands
    of items holds no future per item, and its owner records values as they come (the checkpoints save
    groups while later items run)."""

    def __init__(self, workers: int, name: str) -> None:
        self.workers = max(1, workers)
        self._name = name
        self._pool: ThreadPoolExecutor | None = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def each(
        self,
        items: Iterable[T],
        work: Callable[[T], R],
        receive: Callable[[T, R | _NotStarted], None],
        may_start: Callable[[], bool] | None = None,
    ) -> bool:
        """Run `work` over `items`; `receive(item, value)` in this thread as each ends (NOT_STARTED: kept
        from starting). True when every item was started."""
        run = _Round(work, may_start)
        listed = items if isinstance(items, list | tuple) else list(items)
        if len(listed) <= 1 or self.workers == 1:
            for item in listed:  # one at a time in this thread: no hand-over for nothing
                run.settle(item, run.one(item), receive)
            run.raise_broken()
            return run.complete
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=self._name)
        ended: queue.SimpleQueue[tuple[T, R | _NotStarted | _Broken]] = queue.SimpleQueue()
        in_flight = 0
        for item in listed:
            while in_flight >= 2 * self.workers:
                run.settle(*ended.get(), receive)
                in_flight -= 1
            self._pool.submit(lambda it: ended.put((it, run.one(it))), item)
            in_flight += 1
        while in_flight:
            run.settle(*ended.get(), receive)
            in_flight -= 1
        run.raise_broken()
        return run.complete


class _Round(Generic[T, R]):
    """One `each`: what a worker does with an item, and what its owner does with the value."""

    def __init__(self, work: Callable[[T], R], may_start: Callable[[], bool] | None) -> None:
        self.work = work
        self.may_start = may_start
        self.complete = True
        self.broken: BaseException | None = None

    def one(self, item: T) -> R | _NotStarted | _Broken:
        if self.may_start is not None and not self.may_start():
            return NOT_STARTED
        try:
            return self.work(item)
        except BaseException as error:  # a bug: raised in the owner's thread once every item ended
            return _Broken(error)

    def settle(
        self, item: T, value: R | _NotStarted | _Broken, receive: Callable[[T, R | _NotStarted], None]
    ) -> None:
        if isinstance(value, _Broken):
            self.broken = self.broken or value.error
            return
        if value is NOT_STARTED:
            self.complete = False
        receive(item, value)

    def raise_broken(self) -> None:
        if self.broken is not None:
            raise self.broken
