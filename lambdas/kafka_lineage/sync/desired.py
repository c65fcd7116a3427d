"""Registry state -> the asset content DataZone should hold for a schema (pure).

Forms are matched to the asset type by *type name* (the contract's names); their *form names* and pinned
revisions come from DataZone's GetAssetType, so nothing here restates smithy/KafkaTopicAssetType.json.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from kafka_lineage.config import Source
from kafka_lineage.drift.summary import DriftSummary
from kafka_lineage.model.asset_forms import AssetForm, clashes
from kafka_lineage.model.catalog import AssetContent, AssetType, FormInput
from kafka_lineage.model.cluster_topics import TopicProperties
from kafka_lineage.model.registry import SchemaDetails
from kafka_lineage.schemas import ParsedSchema
from kafka_lineage.sync.drift import DRIFT_FORM_TYPE, current_summary, drift_form, marker
from kafka_lineage.sync.topics import TOPIC_FORM_TYPE
from kafka_lineage.sync.topics import marker as topic_marker

SCHEMA_FORM_TYPE = "KafkaSchemaFormType"
MSK_FORM_TYPE = "MskSourceReferenceFormType"
COMMON_FORM_TYPE = "amazon.datazone.AssetCommonDetailsFormType"
TABLE_FORM_TYPE = "amazon.datazone.RelationalTableFormType"

# RelationalTableFormType's members are documented by example only (see local/standins/readings.py,
# managed_form_members_undeclared): its form is written only when its model declares these, and each
# further member only when declared.
TABLE_FORM_ESSENTIALS = frozenset({"columns", "columns.columnName", "columns.dataType"})

FORM_CONTENT_LIMIT = 300_000  # characters per form's content (CreateAsset)
MAX_FORMS = 10  # CreateAsset's formsInput: at most 10 forms
NAME_LIMIT = 256
DESCRIPTION_LIMIT = 2048
# Keep the newest versions when a schema has very many: the history must fit the form's content limit.
HISTORY_LIMIT = 1000
# Bump when the content this module builds changes shape: every asset is then revised by the next inspection.
CONTENT_VERSION = 1


class AssetTypeMismatch(ValueError):
    """The asset type in DataZone lacks a form this code must fill."""


@dataclass(frozen=True)
class Desired:
    content: AssetContent
    content_hash: str
    latest_version: int
    schema_version_id: str
    source_fingerprint: str
    warning: str | None
    drift: dict[str, Any] | None = None  # the drift form's content; None when the asset type has no such form


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(*parts: Any) -> str:
    return hashlib.sha256(_json(parts).encode()).hexdigest()


@dataclass(frozen=True)
class Governance:
    """What a governed domain's rules ask of every asset: extra metadata forms (`assetForms`) and glossary
    terms (`glossaryTerms`). Empty by default."""

    asset_forms: tuple[AssetForm, ...] = ()
    glossary_terms: tuple[str, ...] = ()

    def marker(self) -> str:
        """Moves the source fingerprint when the settings change, so every asset is rebuilt and revised."""
        if not self.asset_forms and not self.glossary_terms:
            return ""
        return digest(
            [form.model_dump(by_alias=True) for form in self.asset_forms], list(self.glossary_terms)
        )


NO_GOVERNANCE = Governance()


def source_fingerprint(
    details: SchemaDetails,
    namespace: str,
    asset_type_revision: str,
    drift_marker: str = "",
    governance: Governance = NO_GOVERNANCE,
    topic: TopicProperties | None = None,
) -> str:
    """What GetSchema + ListSchemaVersions say, minus UpdatedTime, plus the drift summary the asset shows
    (sync.drift.marker): equal fingerprints, equal content.

    A `verify` or targeted run compares it with the asset records to skip reading the definition of an
    unchanged schema; a moved drift summary moves it, so the content is rebuilt and revised once; so do the
    topic's properties (sync.topics.marker).
    """
    versions = [(v.number, v.version_id, v.status, v.created_time) for v in details.versions]
    parts: list[Any] = [
        details.schema_arn,
        details.data_format,
        details.compatibility,
        details.description,
        details.status,
        versions,
        namespace,
        asset_type_revision,
        CONTENT_VERSION,
    ]
    if drift_marker:  # absent otherwise: schemas without drift keep the fingerprint they had
        parts.append(drift_marker)
    if governance.marker():  # likewise: without assetForms and glossaryTerms nothing moves
        parts.append(governance.marker())
    if topic_marker(topic):  # likewise: a record from before topics were read keeps its fingerprint
        parts.append(topic_marker(topic))
    return digest(*parts)


def has_drift_form(asset_type: AssetType) -> bool:
    """Whether the deployed asset type carries the drift form (an older revision of it does not)."""
    return any(spec.type_name == DRIFT_FORM_TYPE for spec in asset_type.forms.values())


def shown_drift(
    asset_type: AssetType, summary: DriftSummary | None, latest_version: int
) -> DriftSummary | None:
    """The summary the asset shows: the current one, when the asset type has a drift form at all."""
    return current_summary(summary, latest_version) if has_drift_form(asset_type) else None


def topic_source_identifier(namespace: str, topic: str) -> str:
    """The lineage node id of a topic: the OpenLineage dataset `{namespace}/{name}`."""
    return f"{namespace}/{topic}"


def asset_name(topic: str) -> str:
    return topic if len(topic) <= NAME_LIMIT else topic[: NAME_LIMIT - 1] + "…"


def _form_names(asset_type: AssetType) -> dict[str, str]:
    by_type = {spec.type_name: name for name, spec in asset_type.forms.items()}
    missing = [t for t in (SCHEMA_FORM_TYPE, MSK_FORM_TYPE, COMMON_FORM_TYPE) if t not in by_type]
    if missing:
        raise AssetTypeMismatch(f"asset type {asset_type.name} has no form of type(s) {missing}")
    return by_type


def table_form_members(asset_type: AssetType, form_name: str) -> frozenset[str] | None:
    """The RelationalTableForm members to write: those its pinned model declares; None to leave the
    (optional) form out, when the model is unknown or lacks what a column needs."""
    spec = asset_type.forms[form_name]
    members = asset_type.members_of(spec.type_name, spec.type_revision)
    if members is None or not members >= TABLE_FORM_ESSENTIALS:
        return None
    return members


def _table_form(
    topic: str, parsed: ParsedSchema, members: frozenset[str]
) -> tuple[dict[str, Any], str | None]:
    with_description = "columns.description" in members
    columns = [
        {"columnName": column.name, "dataType": column.data_type}
        | ({"description": column.description} if column.description and with_description else {})
        for column in parsed.columns
    ]
    head = {"tableName": topic} if "tableName" in members else {}
    form = head | {"columns": columns}
    if len(_json(form)) <= FORM_CONTENT_LIMIT:
        return form, None
    # Degrade deliberately: keep as many leading columns as fit, and say so in the schema form.
    kept = len(columns)
    while kept > 0 and len(_json(head | {"columns": columns[:kept]})) > FORM_CONTENT_LIMIT:
        kept = kept * 9 // 10
    note = f"only the first {kept} of {len(columns)} fields are listed as columns (form size limit)"
    return head | {"columns": columns[:kept]}, note


@dataclass(frozen=True)
class Catalogued:
    """Where a schema's asset is catalogued: its source's Kafka namespace, the asset type, and the extra
    forms and glossary terms every asset of the domain carries."""

    namespace: str
    asset_type: AssetType
    governance: Governance = NO_GOVERNANCE


def desired_asset(
    source: Source,
    details: SchemaDetails,
    parsed: ParsedSchema,
    definition: str,
    where: Catalogued,
    drift: DriftSummary | None = None,
    properties: TopicProperties | None = None,
) -> Desired:
    """The complete asset content for one schema, and the hash that tells whether DataZone must change.

    `drift` is the topic's last recorded drift summary (any version: a stale one is not shown);
    `properties` the topic as the cluster has it (None: unknown, and the topic form is left out)."""
    namespace, asset_type, governance = where.namespace, where.asset_type, where.governance
    form_names = _form_names(asset_type)
    topic = details.schema_name
    latest = details.latest
    latest_number = latest.number if latest else 0
    history = [
        {
            "version_number": v.number,
            "registered_at": v.created_time,
            "status": v.status,
            "schema_version_id": v.version_id,
        }
        for v in details.versions[-HISTORY_LIMIT:]
    ]
    table_members = (
        table_form_members(asset_type, form_names[TABLE_FORM_TYPE]) if TABLE_FORM_TYPE in form_names else None
    )
    table_form, table_note = _table_form(topic, parsed, table_members) if table_members else ({}, None)
    warning = "; ".join(note for note in (parsed.warning, table_note) if note) or None
    schema_form: dict[str, Any] = {
        "kafka_topic": topic,
        "schema_version": str(latest.number if latest else 0),
        "schema_arn": details.schema_arn,
        "registry_arn": details.registry_arn,
        "registry_name": source.registry_name,  # details name it by source key (`<account>:` for another)
        "compatibility_mode": details.compatibility,
        "data_format": details.data_format,
        "schema_status": details.status,
        "latest_version_registered_at": latest.created_time if latest else "",
        "version_count": len(details.versions),
        "schema_versions": history,
        "definition_sha256": hashlib.sha256(definition.encode()).hexdigest(),
        "field_count": len(parsed.columns),
    }
    if warning:
        schema_form["parse_warning"] = warning[:2000]
    forms = [
        FormInput(form_names[SCHEMA_FORM_TYPE], _json(schema_form)),
        FormInput(
            form_names[MSK_FORM_TYPE],
            _json(
                {
                    "cluster_arn": source.cluster_arn,
                    "cluster_type": source.cluster_type,
                    "lineage_namespace": namespace,
                }
            ),
        ),
        FormInput(
            form_names[COMMON_FORM_TYPE],
            _json({"sourceIdentifier": topic_source_identifier(namespace, topic)}),
        ),
    ]
    if table_members:
        forms.append(FormInput(form_names[TABLE_FORM_TYPE], _json(table_form)))
    drift_content: dict[str, Any] | None = None
    if DRIFT_FORM_TYPE in form_names:
        # Always written, "none" included: a reader can tell "no drift for this version" from "not shown".
        # Who to call are members of the drift form type's later revision: its model is read (GetFormType,
        # once per revision) only when the summary names someone.
        spec = asset_type.forms[form_names[DRIFT_FORM_TYPE]]
        names_readers = drift is not None and bool(drift.consumer_count or drift.subscriber_count)
        members = asset_type.members_of(spec.type_name, spec.type_revision) if names_readers else None
        drift_content = drift_form(drift, latest_number, members)
        forms.append(FormInput(form_names[DRIFT_FORM_TYPE], _json(drift_content)))
    if TOPIC_FORM_TYPE in form_names and properties is not None:
        forms.append(FormInput(form_names[TOPIC_FORM_TYPE], _json(properties.form())))
    forms.extend(
        _extra_forms(governance, asset_type, topic, source.registry_name, details.schema_arn, len(forms))
    )
    cluster_name = source.cluster_arn.split("/")[-2]
    description = (
        f"Kafka topic {topic} on MSK cluster {cluster_name}; "
        f"{details.data_format} schema v{latest.number if latest else 0} in Glue registry "
        f"{source.registry_name}" + (f" of account {source.account}." if source.role_arn else ".")
    )
    if details.description:
        description += f" {details.description}"
    content = AssetContent(
        name=asset_name(topic),
        description=description[:DESCRIPTION_LIMIT],
        forms=tuple(forms),
        glossary_terms=governance.glossary_terms,
    )
    content_hash = content_digest(asset_type, content)
    return Desired(
        content=content,
        content_hash=content_hash,
        latest_version=latest.number if latest else 0,
        schema_version_id=latest.version_id if latest else "",
        source_fingerprint=source_fingerprint(
            details,
            namespace,
            asset_type.revision,
            marker(shown_drift(asset_type, drift, latest_number)),
            governance,
            properties,
        ),
        warning=warning,
        drift=drift_content,
    )


def content_digest(asset_type: AssetType, content: AssetContent) -> str:
    """The hash of what an asset shows: equal hashes, nothing to revise. Extra forms and glossary terms count
    only when present, so assets without them keep the hash they had."""
    parts: list[Any] = [
        asset_type.name,
        asset_type.revision,
        content.name,
        content.description,
        [(f.form_name, f.content) for f in content.forms if f.type_identifier is None],
    ]
    extras = [
        (f.form_name, f.type_identifier, f.type_revision, f.content)
        for f in content.forms
        if f.type_identifier
    ]
    if extras or content.glossary_terms:
        parts.append([extras, list(content.glossary_terms)])
    return digest(*parts)


def _extra_forms(
    governance: Governance, asset_type: AssetType, topic: str, registry_name: str, schema_arn: str, own: int
) -> list[FormInput]:
    """The `assetForms`, filled in for this topic. A name the asset type's forms take, or more forms than an
    asset carries, is refused (the stack refuses both at synth for the asset type it deploys)."""
    taken = clashes(governance.asset_forms, frozenset(asset_type.forms))
    if taken:
        raise AssetTypeMismatch(f"assetForms {taken} are forms of asset type {asset_type.name} already")
    if own + len(governance.asset_forms) > MAX_FORMS:
        raise AssetTypeMismatch(
            f"{own} forms of the asset type and {len(governance.asset_forms)} assetForms pass DataZone's "
            f"{MAX_FORMS} forms an asset"
        )
    return [
        FormInput(
            form.form_name,
            form.rendered(topic, registry_name, schema_arn),
            type_identifier=form.type_identifier,
            type_revision=form.type_revision,
        )
        for form in governance.asset_forms
    ]


SCHEMA_DELETED = "DELETED"


def held_content(
    current: AssetContent, asset_type: AssetType, registry_name: str, subscriptions: int
) -> AssetContent:
    """The content of an asset whose schema is deleted while subscribers hold it: what DataZone holds now,
    the schema form saying `schema_status` DELETED, and a description that says why the asset stays."""
    schema_form = {spec.type_name: name for name, spec in asset_type.forms.items()}.get(SCHEMA_FORM_TYPE)
    forms = []
    for form in current.forms:
        if form.form_name == schema_form:
            content = json.loads(form.content or "{}")
            content["schema_status"] = SCHEMA_DELETED
            forms.append(FormInput(form.form_name, _json(content)))
        elif form.form_name in asset_type.forms:
            # The asset type's own forms go at the revisions it pins, not those GetAsset reported.
            forms.append(FormInput(form.form_name, form.content))
        else:
            forms.append(form)
    note = (
        f"The schema was deleted from Glue registry {registry_name}; this asset stays while its listing has "
        f"{subscriptions} approved subscription(s), and is deleted once none remains."
    )
    description = (note + " " + current.description)[:DESCRIPTION_LIMIT]
    return AssetContent(current.name, description, tuple(forms), current.glossary_terms)
