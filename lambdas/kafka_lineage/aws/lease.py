"""One writer per state: a lease in SSM Parameter Store, whatever the Lambda concurrency settings.

Each function keeps its state in packed SSM parameters, and SSM has no conditional update: two overlapping
invocations that both load, change and save would each overwrite what the other wrote. The one atomic
operation SSM offers is create-if-absent (`PutParameter` with `Overwrite=False` answers
`ParameterAlreadyExists` when the name exists), so the lease is a chain of generations:

    {MAPPING_PATH}/config/lease/{holder}/{generation:010d}   value {"owner", "acquired", "expires"}

* The highest generation present is the live lease. It is held until `expires` (epoch seconds).
* Acquiring creates the next generation with `Overwrite=False`: of two invocations racing for the same
  generation exactly one creates it; the other reads the chain again and finds it held.
* A lease lasts the holder's remaining Lambda time plus a margin, so it can only be taken over once its
  holder must have been stopped by Lambda (the timeout kills it): a takeover never runs beside a live holder.
* Releasing rewrites the holder's own generation as expired (only its holder ever writes it), instead of
  deleting it: AWS asks callers not to re-create a deleted name within 30 seconds.
* `ensure_held()` before every state save re-reads the chain and raises `LeaseLost` when a newer generation
  exists (the holder outlived its lease, e.g. a clock far off): it then stops before writing anything.

Reading chosen where AWS is silent: `Overwrite=False` is atomic per name (two concurrent creates of one name
never both succeed). The SSM API reference documents `ParameterAlreadyExists` for exactly this case.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.pacing import Pacer
from kafka_lineage.aws.packed_store import WRITE_OPERATIONS
from kafka_lineage.model.failures import Conflict, LeaseBusy, LeaseLost
from kafka_lineage.model.state_layout import (
    CONFIG,
    LINEAGE_HOLDER,
    ROLE_LEASE_PREFIX,
    SCHEMA_SYNC_HOLDER,
    state_path,
)
from kafka_lineage.observability import logger

if TYPE_CHECKING:
    from mypy_boto3_ssm import SSMClient

HOLDERS = (SCHEMA_SYNC_HOLDER, LINEAGE_HOLDER)
# subscription-grants holds one lease per IAM role it writes: `subscription-grants-<hash of the role ARN>`
# (an ARN carries `:` and `+=,@`, which SSM names refuse; the hash keeps the name short and valid).
ROLE_HOLDER = re.compile(rf"{ROLE_LEASE_PREFIX}[0-9a-f]{{24}}")


def role_holder(role_arn: str) -> str:
    """The lease holder name of one IAM role (subscription-grants writes each role under its own lease)."""
    return f"{ROLE_LEASE_PREFIX}{hashlib.sha256(role_arn.encode()).hexdigest()[:24]}"


LEASE_MARGIN_SECONDS = 30.0  # added to the holder's remaining time: its lease outlives it
KEEP_GENERATIONS = 2  # older generations are deleted by the next holder (best effort)


def lease_path(mapping_path: str, holder: str) -> str:
    """The SSM path of a holder's lease generations (the stack grants each function only its own)."""
    if holder not in HOLDERS and not ROLE_HOLDER.fullmatch(holder):
        raise ValueError(f"unknown lease holder {holder!r}; known: {HOLDERS}")
    return f"{state_path(mapping_path, CONFIG)}/lease/{holder}"


@dataclass(frozen=True)
class LeaseClock:
    """The time a lease reads (epoch seconds: the holders are other processes) and how it waits."""

    now: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep


REAL_CLOCK = LeaseClock()
POLL_SECONDS = 2.0  # how often a waiting invocation reads the chain again (at most)


@dataclass(frozen=True)
class Generation:
    number: int
    owner: str
    expires: float
    acquired: float = 0.0

    @property
    def last_write(self) -> float:
        """The latest moment its holder can have written: its release (a released generation is rewritten
        with `acquired` = the release time and `expires` 0), or its expiry when it was never released."""
        return max(self.acquired, self.expires)


class StateLease:
    """The lease on one holder's state. Not thread-safe: the run's coordinating thread uses it."""

    def __init__(
        self,
        ssm: SSMClient,
        mapping_path: str,
        holder: str,
        ttl_seconds: float,
        owner: str,
        *,
        clock: LeaseClock = REAL_CLOCK,
        write_limiter: Pacer | None = None,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self._ssm = instrument(ssm, write_limiter, operations=WRITE_OPERATIONS)
        self.path = lease_path(mapping_path, holder)
        self.holder = holder
        self.ttl_seconds = ttl_seconds
        self.owner = owner
        self._clock = clock.now
        self._sleep = clock.sleep
        self._poll_seconds = POLL_SECONDS
        self.generation: int | None = None  # ours, while held
        # When the holder before us can last have written (epoch seconds; 0: nobody ever held it, inf:
        # unknown). A reader that listed the world after this moment need not list it again under the lease.
        self.previous_write: float = float("inf")
        # The generation the invocation that handed this run on held (its handover says, model/handover.py),
        # and whether ours is the one right after it: then nobody wrote between the two invocations.
        self.handed: int | None = None
        self.follows_handover = False
        self.last_generation: int | None = None  # the generation this invocation held last (kept on release)

    @classmethod
    def for_invocation(cls, ssm: SSMClient, mapping_path: str, holder: str, context: Any) -> StateLease:
        """The lease of one Lambda invocation (`context`: Lambda's): held for at most its remaining time
        plus the margin, owned by its request id (a retry of the same request holds it already)."""
        remaining = float(context.get_remaining_time_in_millis()) / 1000
        return cls(ssm, mapping_path, holder, remaining + LEASE_MARGIN_SECONDS, context.aws_request_id)

    # ------------------------------------------------------------------------------------------ public
    def acquire(self, wait_seconds: float) -> None:
        """Hold the lease, waiting up to `wait_seconds` for a live holder to finish; else `LeaseBusy`."""
        give_up = self._clock() + max(0.0, wait_seconds)
        while True:
            chain = self._read_chain()
            live = chain[-1] if chain else None
            now = self._clock()
            if live is not None and live.owner == self.owner and live.expires > now:
                # Ours already: a create whose answer was lost (botocore's retry then met the name), or a
                # retry of this same invocation (Lambda keeps the request id). Either way we hold it.
                self.generation, self.previous_write = live.number, float("inf")
                self.last_generation, self.follows_handover = live.number, False  # it may have written
                return
            if live is None or live.expires <= now:
                number = (live.number if live else 0) + 1
                if self._create(number, now):
                    self.generation = self.last_generation = number
                    self.previous_write = live.last_write if live else 0.0
                    # Created right over the generation the invocation that handed on held: every write
                    # of that one was made before it handed on, and no other holder came between.
                    self.follows_handover = (
                        live is not None and live.number == self.handed and live.last_write < float("inf")
                    )
                    logger.info(
                        "state lease acquired",
                        extra={"lease": self.path, "generation": number, "owner": self.owner},
                    )
                    self._prune(chain)
                    return
                continue  # another invocation created that generation first: read again
            if now >= give_up:
                raise LeaseBusy(
                    f"{self.holder} state is held by {live.owner} until "
                    f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(live.expires))}"
                )
            self._sleep(min(self._poll_seconds, max(0.05, min(live.expires, give_up) - now)))

    def ensure_held(self) -> None:
        """Raise `LeaseLost` unless our generation is still the live one and has not expired."""
        if self.generation is None:
            raise LeaseLost(f"{self.holder} lease is not held")
        chain = self._read_chain()
        live = chain[-1] if chain else None
        if live is None or live.number != self.generation or live.owner != self.owner:
            raise LeaseLost(
                f"{self.holder} lease generation {self.generation} was taken over"
                + (f" by {live.owner} (generation {live.number})" if live else "")
            )
        if live.expires <= self._clock():
            raise LeaseLost(f"{self.holder} lease generation {self.generation} expired")

    def release(self) -> None:
        """Mark our generation expired, so the next invocation need not wait. Never raises."""
        if self.generation is None:
            return
        number, self.generation = self.generation, None
        try:
            self._put(number, self._value(acquired=self._clock(), expires=0.0), overwrite=True)
        except Exception as error:  # it expires by itself; the next holder waits for that at worst
            logger.warning("state lease not released", extra={"lease": self.path, "error": str(error)})

    # ------------------------------------------------------------------------------------------ SSM
    def _read_chain(self) -> list[Generation]:
        generations: list[Generation] = []
        paginator = self._ssm.get_paginator("get_parameters_by_path")
        for page in paginator.paginate(Path=self.path, Recursive=False):
            for parameter in page.get("Parameters", []):
                generation = _parse(self.path, parameter)
                if generation is not None:
                    generations.append(generation)
        generations.sort(key=lambda g: g.number)
        return generations

    def _create(self, number: int, now: float) -> bool:
        try:
            self._put(number, self._value(acquired=now, expires=now + self.ttl_seconds), overwrite=False)
        except Conflict as error:
            if error.code == "ParameterAlreadyExists":
                return False  # another invocation created that generation first
            raise
        return True

    def _put(self, number: int, value: str, *, overwrite: bool) -> None:
        self._ssm.put_parameter(
            Name=_name(self.path, number), Value=value, Type="String", Overwrite=overwrite, Tier="Standard"
        )

    def _value(self, *, acquired: float, expires: float) -> str:
        return json.dumps(
            {"owner": self.owner, "acquired": round(acquired, 3), "expires": round(expires, 3)},
            separators=(",", ":"),
        )

    def _prune(self, chain: list[Generation]) -> None:
        """Delete generations older than the last few (they only ever grow otherwise). Best effort."""
        stale = chain[: max(0, len(chain) + 1 - KEEP_GENERATIONS)]
        if not stale:
            return
        try:
            self._ssm.delete_parameters(Names=[_name(self.path, g.number) for g in stale[:10]])
        except Exception as error:
            logger.warning(
                "old lease generations not deleted", extra={"lease": self.path, "error": str(error)}
            )


def _name(path: str, number: int) -> str:
    return f"{path}/{number:010d}"


def _parse(path: str, parameter: dict[str, Any]) -> Generation | None:
    """A generation, or None for a name that is not ours. An unreadable value counts as expired."""
    name = str(parameter.get("Name", ""))
    suffix = name[len(path) + 1 :] if name.startswith(path + "/") else ""
    if not suffix.isdigit():
        return None
    try:
        value = json.loads(parameter.get("Value", ""))
        expires = float(value["expires"])
        return Generation(int(suffix), str(value["owner"]), expires, float(value.get("acquired", expires)))
    except (ValueError, KeyError, TypeError):
        logger.error("unreadable lease generation counts as expired", extra={"parameter": name})
        return Generation(int(suffix), "", 0.0, float("inf"))  # when it was last written: unknown
