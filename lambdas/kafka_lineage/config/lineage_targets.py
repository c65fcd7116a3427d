"""Where lineage-emission posts its lineage (`lineageTargets`): DataZone's lineage graph, and the Glue Data
Catalog's lineage graph of each account that holds an edge's table. Any of the two, not none.

The run plans against the emission state of DataZone when it is a target, else Glue's (its retractions, the
edges kept as they are, the mass-removal fail-safe and the topics whose drift to check come from that plan,
lineage/targets.py); a target that is off is neither posted to nor has its state written.
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
    if not value:
        raise ValueError(
            'names no target: lineage would go nowhere (["datazone"], ["glue"] or ["datazone", "glue"]; '
            "to stop lineage, disable the lineage-emission schedule instead)"
        )
    return value


LineageTargets = Annotated[tuple[Target, ...], AfterValidator(_targets)]
