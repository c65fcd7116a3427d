"""What an invocation hands its follow-up besides the request: the `handover` member of the follow-up's event.

It is the functions' own (any shape may carry it, as schema-sync's `resumeAfter` and lineage-emission's
`forceNonce`), and says:

- `lease`: the generation of the state lease the invocation that handed on held last. A follow-up whose own
  lease is the very next generation knows nobody wrote the state between the two invocations: the one that
  handed on had made every write before it invoked this one, and any other writer would have held a
  generation in between. What the follow-up read of the state before taking its lease is then still what
  the state holds, and it is not read again under the lease (engine/handover.py, `unchanged_since_handover`).
- `through`: lineage-emission's resume point, the last hash group of its state through which every action
  was done and saved (engine/stream.py): its follow-up looks at the groups after it (lineage/window.py).
- `rates`: the pace each quota's calls had reached (aws.pacing.reached), so that the follow-up's
  limiters start there rather than below their ceilings again: the slow start is for a run that does not
  know what the account leaves, and the invocation that handed on had just measured it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

HANDOVER_KEY = "handover"

# A quota's key in `rates`: "<service>:<quota bucket>" (aws.pacing.reached), in the functions' account.
RateKey = Annotated[str, Field(pattern=r"^[a-z0-9-]{1,40}:[A-Za-z0-9-]{1,80}$")]
Rate = Annotated[StrictFloat | StrictInt, Field(gt=0, le=10_000)]


class Handover(BaseModel):
    """The `handover` member of a follow-up's event (strict: it is the functions' own)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lease: StrictInt | None = Field(default=None, ge=1)
    # The last hash group of the state through which the chain did everything (engine/stream.py).
    through: str | None = Field(default=None, pattern=r"^[0-9a-f]{1,4}$")
    rates: dict[RateKey, Rate] = Field(default_factory=dict, max_length=100)


def handover_of(event: Mapping[str, Any]) -> Handover:
    """The handover an event carries (none: nothing handed over). The request parsers have validated it."""
    value = event.get(HANDOVER_KEY)
    return Handover.model_validate(value) if isinstance(value, Mapping) else Handover()


def with_handover(
    event: Mapping[str, Any],
    lease: int | None,
    through: str | None = None,
    rates: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """The follow-up's event: `event` with this invocation's handover (a lease it did not hold is not
    passed on: an event handed on by a run deferred for a busy lease carries no generation)."""
    handed = dict(event)
    handed.pop(HANDOVER_KEY, None)
    member: dict[str, Any] = {}
    if lease is not None:
        member["lease"] = lease
    if through is not None:
        member["through"] = through
    if rates:
        member["rates"] = {key: round(rate, 3) for key, rate in sorted(rates.items())}
    if member:
        handed[HANDOVER_KEY] = member
    return handed
