"""Where lineage-emission posts its lineage (`lineageTargets`): DataZone's lineage graph, and the Glue Data
Catalog's lineage graph of each account that holds an edge's table.

DataZone stays the target every run plans against (its emission state decides retractions and drift), so it
cannot be left out; "glue" adds the second graph.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator

DATAZONE = "datazone"
GLUE = "glue"
Target = Literal["datazone", "glue"]


def _targets(value: tuple[Target, ...]) -> tuple[Target, ...]:
    if len(set(value)) != len(value):
        raise ValueError(f"lists a target more than once: {list(value)}")
    if DATAZONE not in value:
        raise ValueError(
            'must include "datazone": the Glue graph is a second target beside DataZone\'s, not a '
            'replacement (["datazone"] or ["datazone", "glue"])'
        )
    return value


LineageTargets = Annotated[tuple[Target, ...], AfterValidator(_targets)]
