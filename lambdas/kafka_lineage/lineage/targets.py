"""The lineage targets that are on (`lineageTargets`), as the plan step consults them: one value per run.

One plan decides, for every target, which topics the run covers, which edges are gone (retractions), which
are kept as they are (their connector or path unread), which retractions the mass-removal fail-safe holds
back, and which topics have drift to check. It is made against the emission state of DataZone when DataZone
is a target, else against Glue's (`glue.state.reference`). Each target then plans its own posts against its
own state, so a target added later receives every current edge once.

With DataZone off, DataZone's share of the plan is empty: nothing is posted to it, deleted from it or written
to its state, and the result reports none of it. Drift is still checked for every topic with edges: its
announcement and summary are DataZone's no more than Glue's; only the run facet that carries it rides in
DataZone's runs alone, so with DataZone off no run has to wait for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_lineage.lineage.glue.state import reference
from kafka_lineage.lineage.glue.target import GlueStates, GlueTarget
from kafka_lineage.lineage.model import LoadedStates, load_states
from kafka_lineage.lineage.plan import Emit, LineagePlan
from kafka_lineage.lineage.ports import StateStore


@dataclass(frozen=True)
class Targets:
    """Whether DataZone is a target, and the other targets (the Glue graphs) with their ports."""

    datazone: bool = True
    others: tuple[GlueTarget, ...] = ()

    @property
    def several(self) -> bool:
        """More than DataZone alone: failures then name their target, schema versions are read once."""
        return not self.datazone or bool(self.others)

    def load(self, datazone_state: StateStore) -> tuple[LoadedStates, tuple[GlueStates, ...]]:
        """The plan's reference state (DataZone's, or with DataZone off the first other target's) and each
        other target's state: each store is read once."""
        others = tuple(target.load() for target in self.others)
        if self.datazone or not others:
            return load_states(datazone_state.load()), others
        return reference(others[0].states), others

    def datazone_plan(self, plan: LineagePlan) -> LineagePlan:
        """DataZone's share of the plan: all of it, or with DataZone off nothing to do or count, while what
        the plan says of the topics themselves (unmapped, failed, held back, kept) still stands."""
        if self.datazone:
            return plan
        return LineagePlan(
            unmapped=plan.unmapped, failed=plan.failed, held_back=plan.held_back, kept=plan.kept
        )

    def drift_plan(self, plan: LineagePlan) -> LineagePlan:
        """What drift reads of the plan (drift_check.drift_keys): the topics with edges, and the runs about to
        be posted to DataZone (they carry the drift facet). With DataZone off, no run carries it: every
        planned edge only marks its topic as one with edges."""
        if self.datazone:
            return plan
        emitted = tuple(action.key for action in plan.actions if isinstance(action, Emit))
        return LineagePlan(unchanged=(*plan.unchanged, *emitted), kept=plan.kept)
