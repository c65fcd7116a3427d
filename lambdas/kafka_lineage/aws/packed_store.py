"""Per-key JSON entries packed into SSM Parameter Store String parameters under one path.

Why packed, and why hashed names
--------------------------------
Both Lambdas keep one small JSON entry per schema or topic: the schema -> asset mapping under
``{MAPPING_PATH}/assets`` and the lineage emission state under ``{MAPPING_PATH}/lineage``. One parameter
per entry, named after the key, does not work:

* Glue registry and schema names are ``[a-zA-Z0-9-_$#.]{1,255}``. SSM names allow only letters, digits,
  ``_ . -`` and ``/``, at most 15 levels, no level starting with ``aws`` or ``ssm``, and at most 1,011
  characters of ARN. ``$`` and ``#`` cannot be written at all, and two 255-character names plus the path do
  not fit; any escaping scheme has to be proven injective and still overflows the length.
* The standard tier allows 10,000 parameters per account and region, and SSM's write rate is low and shared
  by the whole account. One parameter per schema would eat the quota of every other team in the account.

So names carry no meaning at all: a key's *group* is the first ``group_bits`` bits of ``sha256(key)``
written as lower-case hex (256 groups by default), and the group's entries live in chunk parameters
``{path}/{group}-{i}`` (i = 0, 1, ...). Such names use only ``[0-9a-f-]``, are one level below the
path and a few characters long, so they are valid SSM names whenever the path is. Each value is a
standard-tier String of at most 4,096 bytes (UTF-8 measured, never exceeded) holding compact JSON::

    {"v":1,"e":{"<full key>":{...entry...},...}}

Every entry carries its full key, so the mapping from entries back to keys is injective by construction,
whatever the names look like and whatever the hash does (a hash collision only means two keys share a
chunk). 10,000 entries of ~100 bytes fit in a few hundred parameters.

Placement (crash safety and write economy)
------------------------------------------
* Sticky: an entry stays in the chunk where ``load()`` found it while it still fits, so updating or
  deleting one entry rewrites exactly one parameter. A new entry goes to the lowest-numbered chunk of its
  group with room, or to a new chunk.
* An entry that grows out of its chunk moves: the destination is written before the source, so a crash in
  between leaves a duplicate, never a loss. ``load()`` tolerates duplicates: it keeps the copy in the
  most recently modified parameter (in the crash case that is the destination, holding the newer value),
  ties broken by the lower chunk, and the next ``save()`` removes the other copy. A chunk that loses a moved
  entry never receives a moved entry in the same save, so the "destination first" order has no cycles.
* Only parameters whose entries change are written; a chunk that becomes empty is deleted
  (ParameterNotFound counts as success, so retries are safe). AWS asks to wait 30 seconds before
  re-creating a deleted name, so a store does not create a chunk it deleted less than 30 seconds ago
  (a separate invocation cannot know; the next chunk index is used only within this process).
* Values written by a newer format (an unknown ``"v"``) make ``load()`` raise ``PackedFormatError``:
  overwriting them would silently lose data after a rollback. Parameters under the path that are not
  ours (another name shape, or a value that is not JSON) are logged and left alone; a chunk name holding
  foreign content is skipped when placing entries, never overwritten.

Concurrency
-----------
A store is single-threaded: ``load()`` and ``save()`` must not run concurrently, and ``save()`` is called
from one thread at a time (callers collect changes from their workers and save once). Overlapping calls
raise ``RuntimeError`` instead of corrupting the in-memory picture. SSM has no conditional writes, so the
store also assumes one writer per path (each Lambda owns its path and runs with reserved concurrency);
when a PutParameter answers a version other than the one expected, a warning is logged (another writer
interfered, or botocore retried a put whose response was lost, which is harmless). After a failed
``save()``, call ``load()`` again before saving.
"""

from __future__ import annotations

import contextlib
import graphlib
import json
import re
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.pacing import Pacer
from kafka_lineage.model.failures import NotFound
from kafka_lineage.model.state_layout import MAX_VALUE_BYTES, hash_group
from kafka_lineage.observability import logger

if TYPE_CHECKING:
    from mypy_boto3_ssm import SSMClient

FORMAT_VERSION = 1
# GetParametersByPath returns at most 10 parameters per page.
PAGE_SIZE = 10
# AWS: "After deleting a parameter, wait for at least 30 seconds to create a parameter with the same name."
RECREATE_DELAY_SECONDS = 30.0
MAX_GROUP_BITS = 16
# What the write limiter paces: SSM's write quota (shared by the whole account), not its reads.
WRITE_OPERATIONS = ("PutParameter", "DeleteParameter", "DeleteParameters")

# Our chunk names below the path: hex group, dash, decimal index without leading zeros.
_CHUNK_NAME = re.compile(r"([0-9a-f]{1,4})-(0|[1-9][0-9]{0,5})")
_HEAD = f'{{"v":{FORMAT_VERSION},"e":{{'
_TAIL = "}}"
_EMPTY_SIZE = len((_HEAD + _TAIL).encode("utf-8"))


class PackedFormatError(ValueError):
    """A parameter of ours holds a value this code must not read or overwrite (newer format, corrupt)."""


def _key_json(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)


def _utf8_len(text: str, key: str) -> int:
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError as error:
        raise ValueError(f"entry {key!r} cannot be encoded as UTF-8: {error}") from error


def _canonical(key: str, entry: Mapping[str, Any]) -> str:
    """The entry's compact, key-sorted JSON: equal entries give equal text, so unchanged ones are skipped."""
    try:
        return json.dumps(entry, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"entry {key!r} is not JSON-serialisable: {error}") from error


class _Chunk:
    """The entries of one parameter (key -> canonical entry JSON) and the UTF-8 size of its rendered value."""

    __slots__ = ("entries", "size")

    def __init__(self) -> None:
        self.entries: dict[str, str] = {}
        self.size = _EMPTY_SIZE

    @staticmethod
    def piece(key: str, text: str) -> int:
        return _utf8_len(_key_json(key), key) + 1 + _utf8_len(text, key)

    def fits(self, key: str, text: str) -> bool:
        return self.size + self.piece(key, text) + (1 if self.entries else 0) <= MAX_VALUE_BYTES

    def add(self, key: str, text: str) -> None:
        self.size += self.piece(key, text) + (1 if self.entries else 0)
        self.entries[key] = text

    def remove(self, key: str) -> None:
        text = self.entries.pop(key)
        self.size -= self.piece(key, text) + (1 if self.entries else 0)

    def copy(self) -> _Chunk:
        other = _Chunk()
        other.entries = dict(self.entries)
        other.size = self.size
        return other

    def render(self) -> str:
        body = ",".join(f"{_key_json(key)}:{self.entries[key]}" for key in sorted(self.entries))
        return _HEAD + body + _TAIL


@dataclass
class _Meta:
    """What SSM told us about a parameter: its version and when it was last modified."""

    version: int | None
    modified: float = 0.0


@dataclass
class _Plan:
    chunks: dict[str, _Chunk]
    where: dict[str, str]
    # (destination, source) of every entry that moved.
    moves: list[tuple[str, str]] = field(default_factory=list)


class PackedStore:
    """Per-key JSON entries (dicts) packed into SSM String parameters below ``path``. See the module doc."""

    def __init__(
        self,
        ssm: SSMClient,
        path: str,
        *,
        write_limiter: Pacer | None = None,
        group_bits: int = 8,
        nested: tuple[str, ...] = (),
    ) -> None:
        if not path.startswith("/"):
            raise ValueError(f"SSM path {path!r} must start with '/'")
        if not 1 <= group_bits <= MAX_GROUP_BITS:
            raise ValueError(f"group_bits must be between 1 and {MAX_GROUP_BITS}, not {group_bits}")
        self.path = path.rstrip("/")  # a sub-path of the mapping path, e.g. state_path(mapping_path, LINEAGE)
        if not self.path:
            raise ValueError("the SSM path must name a path below '/'")
        self.group_bits = group_bits
        # Sub-paths below the path that another store owns (the data products' below the asset records'):
        # their parameters are neither ours nor foreign, so they are skipped without a warning.
        self._nested = tuple(f"{part.strip('/')}/" for part in nested)
        self._ssm = instrument(ssm, write_limiter, operations=WRITE_OPERATIONS)
        self._busy = threading.Lock()
        self._loaded = False
        self._chunks: dict[str, _Chunk] = {}
        self._meta: dict[str, _Meta] = {}
        self._where: dict[str, str] = {}
        # key -> chunks holding a stale duplicate copy, removed by the next save.
        self._stale: dict[str, list[str]] = {}
        # Chunk-shaped names holding something that is not ours: never written, skipped for placement.
        self._blocked: set[str] = set()
        self._deleted_at: dict[str, float] = {}

    # -- naming ---------------------------------------------------------------------------------------

    @staticmethod
    def group_of(key: str, group_bits: int = 8) -> str:
        """The hex group of ``key`` (the state layout's `hash_group`)."""
        return hash_group(key, group_bits)

    def chunk_name(self, group: str, index: int) -> str:
        return f"{self.path}/{group}-{index}"

    def parameter_names_for(self, key: str) -> list[str]:
        """Parameters holding ``key`` after load/save: one, or more for an unrepaired duplicate."""
        holder = self._where.get(key)
        return [] if holder is None else [holder, *self._stale.get(key, [])]

    def parameter_names(self) -> list[str]:
        """Every parameter of ours below the path, as last loaded or saved."""
        return sorted(self._chunks)

    def parameter_count(self) -> int:
        return len(self._chunks)

    # -- load -----------------------------------------------------------------------------------------

    def load(self) -> dict[str, dict[str, Any]]:
        """Read every entry below the path (GetParametersByPath, fully paginated)."""
        with self._exclusive():
            chunks: dict[str, _Chunk] = {}
            meta: dict[str, _Meta] = {}
            blocked: set[str] = set()
            pages = self._ssm.get_paginator("get_parameters_by_path").paginate(
                Path=self.path, Recursive=True, PaginationConfig={"PageSize": PAGE_SIZE}
            )
            for page in pages:
                for parameter in page.get("Parameters", []):
                    self._ingest(parameter, chunks, meta, blocked)
            holders: dict[str, list[str]] = {}
            for name in sorted(chunks, key=_chunk_order):
                for key in chunks[name].entries:
                    holders.setdefault(key, []).append(name)
            where: dict[str, str] = {}
            stale: dict[str, list[str]] = {}
            for key, names in holders.items():
                # Newest first (a crash mid-move leaves the newer value in the destination), then lower chunk.
                ranked = sorted(names, key=lambda n: (-meta[n].modified, _chunk_order(n)))
                where[key] = ranked[0]
                if len(ranked) > 1:
                    stale[key] = ranked[1:]
                    logger.warning(
                        "SSM entry stored twice (an interrupted move); keeping the newest copy",
                        extra={"key": key, "kept": ranked[0], "stale": ranked[1:]},
                    )
            self._chunks, self._meta, self._blocked = chunks, meta, blocked
            self._where, self._stale = where, stale
            self._loaded = True
            return {key: json.loads(chunks[name].entries[key]) for key, name in where.items()}

    def entries(self) -> dict[str, dict[str, Any]]:
        """Every entry as last loaded or saved, without a call (empty before the first load)."""
        with self._exclusive():
            return {key: json.loads(self._chunks[name].entries[key]) for key, name in self._where.items()}

    def _ingest(
        self,
        parameter: Mapping[str, Any],
        chunks: dict[str, _Chunk],
        meta: dict[str, _Meta],
        blocked: set[str],
    ) -> None:
        name = str(parameter["Name"])
        relative = name[len(self.path) + 1 :] if name.startswith(self.path + "/") else ""
        if self._nested and relative.startswith(self._nested):
            return
        if not _CHUNK_NAME.fullmatch(relative):
            logger.warning(
                "leaving alone an SSM parameter that is not a packed chunk", extra={"parameter": name}
            )
            return
        document: Any = None
        if parameter.get("Type", "String") == "String":
            try:
                document = json.loads(parameter.get("Value", ""))
            except ValueError:
                document = None
        if not isinstance(document, dict) or "v" not in document:
            logger.warning(
                "leaving alone an SSM parameter whose value is not a packed chunk", extra={"parameter": name}
            )
            blocked.add(name)
            return
        version = document["v"]
        if type(version) is not int or version != FORMAT_VERSION:
            raise PackedFormatError(
                f"SSM parameter {name} holds packed format version {version!r}; this code reads only "
                f"version {FORMAT_VERSION} and will not overwrite it (was a newer release rolled back?)"
            )
        entries = document.get("e")
        if not isinstance(entries, dict) or not all(isinstance(value, dict) for value in entries.values()):
            raise PackedFormatError(
                f"SSM parameter {name} is a corrupt packed chunk: 'e' must map keys to JSON objects"
            )
        chunk = _Chunk()
        for key, entry in entries.items():
            chunk.add(key, _canonical(key, entry))
        chunks[name] = chunk
        modified = parameter.get("LastModifiedDate")
        meta[name] = _Meta(
            version=parameter.get("Version"),
            modified=modified.timestamp() if isinstance(modified, datetime) else 0.0,
        )

    # -- save -----------------------------------------------------------------------------------------

    def save(self, changes: Mapping[str, dict[str, Any] | None]) -> int:
        """Upsert (dict) or delete (None) entries, writing only changed parameters. Returns write calls."""
        with self._exclusive():
            if not self._loaded:
                raise RuntimeError(
                    "PackedStore.save() needs a successful load() first (again after a failed save)"
                )
            prepared = self._prepare(changes)
            plan = self._plan(prepared)
            writes = 0
            try:
                for name in self._write_order(plan):
                    writes += self._write(name, plan.chunks[name])
            except BaseException:
                # SSM now holds a mix of old and new chunks; only a fresh load() knows which.
                self._loaded = False
                raise
            self._chunks = {name: chunk for name, chunk in plan.chunks.items() if chunk.entries}
            self._where, self._stale = plan.where, {}
            if writes:
                logger.debug("saved packed SSM entries", extra={"path": self.path, "writes": writes})
            return writes

    def _prepare(self, changes: Mapping[str, dict[str, Any] | None]) -> dict[str, str | None]:
        """Validate every change before anything is written: a bad entry must not leave half a save behind."""
        prepared: dict[str, str | None] = {}
        for key, entry in changes.items():
            if not isinstance(key, str) or not key:
                raise ValueError(f"entry keys must be non-empty strings, not {key!r}")
            if entry is None:
                prepared[key] = None
                continue
            if not isinstance(entry, dict):
                raise TypeError(f"entry {key!r} must be a dict or None, not {type(entry).__name__}")
            text = _canonical(key, entry)
            alone = _EMPTY_SIZE + _Chunk.piece(key, text)
            if alone > MAX_VALUE_BYTES:
                raise ValueError(
                    f"entry {key!r} needs {alone} bytes on its own; an SSM standard parameter holds "
                    f"{MAX_VALUE_BYTES}: keep entries smaller"
                )
            prepared[key] = text
        return prepared

    def _plan(self, prepared: Mapping[str, str | None]) -> _Plan:
        plan = _Plan(
            chunks={name: chunk.copy() for name, chunk in self._chunks.items()}, where=dict(self._where)
        )
        for key, names in self._stale.items():
            for name in names:
                if key in plan.chunks[name].entries:
                    plan.chunks[name].remove(key)
        # Deletions first: they make room for what follows.
        for key in sorted(k for k, text in prepared.items() if text is None):
            holder = plan.where.pop(key, None)
            if holder is not None:
                plan.chunks[holder].remove(key)
        sources: set[str] = set()
        for key in sorted(k for k, text in prepared.items() if text is not None):
            text = prepared[key]
            assert text is not None
            holder = plan.where.get(key)
            if holder is not None:
                chunk = plan.chunks[holder]
                if chunk.entries[key] == text:
                    continue
                chunk.remove(key)
                if chunk.fits(key, text):
                    chunk.add(key, text)
                    continue
                # Grown out of its chunk: move. A chunk that lost a moved entry takes none (no cycles).
                destination = self._place(key, text, plan, exclude=sources | {holder})
                plan.moves.append((destination, holder))
                sources.add(holder)
            else:
                destination = self._place(key, text, plan, exclude=set())
            plan.where[key] = destination
        return plan

    def _place(self, key: str, text: str, plan: _Plan, exclude: set[str]) -> str:
        """Put ``key`` in the lowest-numbered chunk of its group with room (a new chunk if none has)."""
        group = self.group_of(key, self.group_bits)
        now = time.monotonic()
        index = 0
        while True:
            name = self.chunk_name(group, index)
            index += 1
            if name in exclude or name in self._blocked:
                continue
            chunk = plan.chunks.get(name)
            if chunk is None:
                deleted = self._deleted_at.get(name)
                if deleted is not None and now - deleted < RECREATE_DELAY_SECONDS:
                    continue
                chunk = plan.chunks[name] = _Chunk()
            if chunk.fits(key, text):
                chunk.add(key, text)
                return name
            if not chunk.entries:
                # _prepare() admitted the entry, so an empty chunk must take it; never loop forever.
                raise AssertionError(f"entry {key!r} does not fit an empty chunk")

    def _write_order(self, plan: _Plan) -> list[str]:
        """Changed parameters, each move's destination before its source."""
        changed = [
            name
            for name in sorted(plan.chunks, key=_chunk_order)
            if (name in self._chunks and plan.chunks[name].entries != self._chunks[name].entries)
            or (name not in self._chunks and plan.chunks[name].entries)
        ]
        sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
        for name in changed:
            sorter.add(name)
        for destination, source in plan.moves:
            if destination in changed and source in changed:
                sorter.add(source, destination)
        return list(sorter.static_order())

    def _write(self, name: str, chunk: _Chunk) -> int:
        if not chunk.entries:
            with contextlib.suppress(NotFound):  # ParameterNotFound: deleted already (a retried save)
                self._ssm.delete_parameter(Name=name)
            self._meta.pop(name, None)
            self._deleted_at[name] = time.monotonic()
            return 1
        value = chunk.render()
        size = len(value.encode("utf-8"))
        # The planner keeps sizes exact; this guards SSM from a planner bug rather than trusting it.
        if size > MAX_VALUE_BYTES:
            raise AssertionError(f"packed value for {name} is {size} bytes, over {MAX_VALUE_BYTES}")
        response = self._ssm.put_parameter(
            Name=name, Value=value, Type="String", Overwrite=True, Tier="Standard"
        )
        known = self._meta.get(name)
        expected = 1 if known is None else (known.version + 1 if known.version is not None else None)
        got = response.get("Version") if isinstance(response, Mapping) else None
        if expected is not None and got is not None and got != expected:
            logger.warning(
                "SSM parameter version jumped: another writer changed it (its change may be lost) "
                "or a retried request was applied twice",
                extra={"parameter": name, "expectedVersion": expected, "version": got},
            )
        self._meta[name] = _Meta(version=got, modified=time.time())
        self._deleted_at.pop(name, None)
        return 1

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        if not self._busy.acquire(blocking=False):
            raise RuntimeError("PackedStore.load() and save() must not overlap (one thread at a time)")
        try:
            yield
        finally:
            self._busy.release()


def _chunk_order(name: str) -> tuple[str, int]:
    """Sort chunk names by group, then numeric index (so ab-10 follows ab-9)."""
    group, _, index = name.rpartition("/")[2].partition("-")
    return group, int(index)
