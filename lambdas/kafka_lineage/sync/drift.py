"""The drift form on a topic's asset: the last drift lineage-emission recorded, as the catalog shows it.

lineage-emission finds drift (it knows the mapped tables and their column lineage) and keeps one
`DriftSummary` per topic in the packed store under `{MAPPING_PATH}/drift` (key `"<registryName>/<topic>"`);
schema-sync owns the asset and puts that summary into the asset's `KafkaSchemaDriftFormType` form:

- only a summary whose `to_version` is the asset's latest schema version is shown; a summary of another
  version is stale (a newer version landed since, not yet assessed, or an older one was deleted) and the
  form then says `drift_status: "none"` for the current version, as it does when nothing is recorded. The
  form is always written (when the asset type has it): "no drift recorded for version N" is explicit, so a
  person browsing the catalog can tell it from an asset not yet revised under the new type;
- the form's content is part of the asset content hash, so a new summary causes exactly one revision and
  an unchanged one none;
- `marker` goes into the schema's source fingerprint, so that a targeted or `verify` inspection whose
  registry state is unchanged still rebuilds the content when the summary moved.

`DriftSummaries` is the reader (one packed-store load per run, only in runs that build asset content);
`read_summaries` reads through it once, or, for a drift event, until the event's summary is there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kafka_lineage.drift.summary import DriftSummary, load_summaries
from kafka_lineage.model import clock
from kafka_lineage.model.report import failure_item
from kafka_lineage.observability import logger
from kafka_lineage.sync.ports import DriftSummaryReader, PackedEntries
from kafka_lineage.sync.requests import SchemaRef

DRIFT_FORM_TYPE = "KafkaSchemaDriftFormType"
NO_DRIFT = "none"
# lineage-emission puts "Schema Drift Detected", then saves the summary: a run started by that event waits
# up to this long (pauses doubling from 0.5 s, within the deadline) for the summary to be readable.
DRIFT_WAIT_SECONDS = 8.0


def drift_key(registry_name: str, topic: str) -> str:
    """The packed-store key lineage-emission writes a topic's summary under."""
    return f"{registry_name}/{topic}"


def current_summary(summary: DriftSummary | None, latest_version: int) -> DriftSummary | None:
    """The summary when it describes the latest version; None when absent or stale."""
    if summary is None or summary.to_version != latest_version:
        return None
    return summary


def marker(summary: DriftSummary | None) -> str:
    """What the source fingerprint carries of the summary shown: all of it, as the form shows all of it
    ("" when none is shown, so a schema without drift keeps the fingerprint it had before drift forms)."""
    if summary is None:
        return ""
    return json.dumps(summary.to_entry(), sort_keys=True, separators=(",", ":"))


def _line(summary: DriftSummary) -> str:
    count = summary.impacted_table_count
    tables = ", ".join(summary.impacted_tables[:3])
    more = f", +{count - 3} more" if count > 3 else ""
    impacted = f"{count} table{'s' if count != 1 else ''} impacted" + (f" ({tables}{more})" if count else "")
    return f"v{summary.from_version} -> v{summary.to_version}: {summary.severity}, {impacted}"


def drift_form(
    summary: DriftSummary | None, latest_version: int, members: frozenset[str] | None = None
) -> dict[str, Any]:
    """The form content for an asset whose latest schema version is `latest_version`. Who to call (the
    consumer groups, the subscribing projects) are members of the form type's later revision, written only
    when the pinned revision declares them (`members`; None: unknown, so none of them)."""
    shown = current_summary(summary, latest_version)
    if shown is None:
        return {
            "drift_status": NO_DRIFT,
            "schema_version": str(latest_version),
            "summary": f"no drift recorded for v{latest_version}",
        }
    return {
        "drift_status": shown.severity,
        "schema_version": str(latest_version),
        "summary": _line(shown),
        "from_version": shown.from_version,
        "to_version": shown.to_version,
        "impacted_tables": list(shown.impacted_tables),
        "impacted_table_count": shown.impacted_table_count,
        "changed_field_count": shown.changed_fields,
        "detected_at": shown.detected_at,
        "drift_fingerprint": shown.fingerprint,
        **{
            member: value
            for member, value in (
                ("consumer_groups", list(shown.consumer_groups)),
                ("consumer_group_count", shown.consumer_count),
                ("subscriber_projects", list(shown.subscriber_projects)),
                ("subscriber_count", shown.subscriber_count),
            )
            if members is not None and member in members
        },
    }


class DriftSummaries:
    """The port `DriftSummaryReader`: reads the summaries lineage-emission keeps, from the packed store under
    `{MAPPING_PATH}/drift` (GetParametersByPath pages of 10 parameters, each holding several summaries).
    schema-sync never writes there: the drift part of the tree is lineage's."""

    def __init__(self, store: PackedEntries) -> None:
        self.store = store
        self.unreadable: list[str] = []

    def load(self) -> dict[str, DriftSummary]:
        summaries, self.unreadable = load_summaries(self.store.load())
        return summaries


def summary_of(summaries: Mapping[str, DriftSummary], registry_name: str, topic: str) -> DriftSummary | None:
    return summaries.get(drift_key(registry_name, topic))


@dataclass(frozen=True)
class DriftRead:
    """What a run read of the summaries: them, or why it could not (`error`: then a schema whose content
    must be built waits for the next run), and what the result warns about (entries with a `driftKey`)."""

    summaries: Mapping[str, DriftSummary]
    error: str | None = None
    warnings: tuple[dict[str, str], ...] = ()


def read_summaries(
    reader: DriftSummaryReader,
    expected: Sequence[tuple[SchemaRef, int]],
    allows: Callable[[float], bool],
) -> DriftRead:
    """Read the summaries once; for a drift event (`expected`: its topic and version), again (briefly, while
    the deadline `allows` the pause) until its summary is there.

    lineage-emission announces a drift before it saves the summary (so a crash in between announces it
    again rather than never), so the event may outrun the summary by the time of one SSM write.
    """
    pause, waited = 0.5, 0.0
    try:
        while True:
            summaries = reader.load()
            missing = [(ref, version) for ref, version in expected if not _has(summaries, ref, version)]
            if not missing or waited + pause > DRIFT_WAIT_SECONDS or not allows(pause):
                break
            clock.sleep(pause)
            waited, pause = waited + pause, pause * 2
    except Exception as error:
        logger.error("drift summaries unreadable", extra={"error": str(error)})
        return DriftRead({}, failure_item(error, doing="drift summaries unreadable")["error"])
    warnings = [
        {
            "driftKey": drift_key(ref.registry_name, ref.schema_name),
            "warning": f"the drift summary for v{version} is not saved yet; the next drift event or verify "
            "run shows it",
        }
        for ref, version in missing
    ]
    # A topic whose summary is unreadable shows no drift until lineage-emission writes its summary again.
    warnings += [
        {"driftKey": key, "warning": "drift summary unreadable; not shown"} for key in reader.unreadable
    ]
    return DriftRead(summaries, None, tuple(warnings))


def _has(summaries: Mapping[str, DriftSummary], ref: SchemaRef, version: int) -> bool:
    found = summary_of(summaries, ref.registry_name, ref.schema_name)
    return found is not None and found.to_version >= version
