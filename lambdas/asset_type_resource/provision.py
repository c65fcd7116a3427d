"""Create DataZone form types and the asset type, idempotently. Used by the custom resource and the demo.

Form types and asset types are immutable in DataZone: a changed definition is a new revision. These
functions read what exists first, so an unchanged definition costs no write and answers the revision in
place, and a changed one creates exactly one new revision. The caller passes a boto3 DataZone client;
each entry point instruments it (kafka_lineage.aws.calls), so refusals arrive as the typed failures.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.config.settings import ASSET_TYPE_NAME_MAX
from kafka_lineage.model.failures import AccessDenied, Conflict, Invalid, NotFound
from kafka_lineage.observability import logger

if TYPE_CHECKING:
    from mypy_boto3_datazone import DataZoneClient
    from mypy_boto3_datazone.type_defs import FormEntryInputTypeDef

MANAGED_FORM_PREFIX = "amazon.datazone."
COMMON_DETAILS_TYPE = "amazon.datazone.AssetCommonDetailsFormType"
# botocore datazone shapes: FormName (asset type form names, no dots), TypeName, FormsInputMap max.
_FORM_NAME = re.compile(r"(?![0-9_])\w+|_\w*[a-zA-Z0-9]\w*")
_MAX_FORMS = 10
_DESCRIPTION_MAX = 2048


class AssetTypeError(Exception):
    """The asset type cannot be provisioned as specified; the message says why."""


@dataclass(frozen=True)
class Provisioned:
    revision: str  # the asset type revision in DataZone now
    converged: bool  # whether that revision is the one the spec describes
    note: str = ""  # why not, and what to do


def reconcile_asset_type(
    datazone_client: DataZoneClient,
    domain_id: str,
    project_id: str,
    spec: Mapping[str, Any],
    form_revisions: Mapping[str, str],
) -> Provisioned:
    """Make the asset type described by `spec` exist with exactly these forms.

    `spec` is smithy/KafkaTopicAssetType.json: `{"name", "description", "forms": {FormName: {"typeName",
    "required"}}}`. Custom form types are pinned at `form_revisions[typeName]`; DataZone-managed ones
    (`amazon.datazone.*`) at the revision GetFormType reports.

    A changed type is a CreateAssetType on the existing name. Whether DataZone answers that with a new
    revision (as the console's edits suggest) or with ConflictException (as the API text says) is
    undocumented. On a conflict the type is read again: equal is done; otherwise it is replaced (delete,
    create) when no asset uses it. When assets use it DataZone offers no way to change it, so the existing
    revision stays in place, reported as not converged, and the deploy goes on.
    """
    datazone_client = instrument(datazone_client)
    name, description, wanted = _desired(datazone_client, domain_id, spec, form_revisions)
    existing = _existing(datazone_client, domain_id, project_id, name)
    if existing is not None and _matches(existing, wanted, description):
        return Provisioned(str(existing["revision"]), True)
    try:
        created = _create_resolving(
            datazone_client, domain_id, project_id, spec, form_revisions, (name, description, wanted)
        )
        return Provisioned(created, True)
    except Conflict as error:
        logger.info(
            "CreateAssetType refused an existing name", extra={"assetType": name, "error": str(error)}
        )
    existing = _existing(datazone_client, domain_id, project_id, name)
    if existing is None:  # deleted in between
        return Provisioned(
            _create_resolving(datazone_client, domain_id, project_id, spec, form_revisions), True
        )
    if _matches(existing, wanted, description):  # a concurrent create made it
        return Provisioned(str(existing["revision"]), True)
    try:
        datazone_client.delete_asset_type(domainIdentifier=domain_id, identifier=name)
    except NotFound:
        pass
    except (Conflict, Invalid, AccessDenied) as error:
        note = (
            f"asset type {name} stays at revision {existing['revision']}: DataZone refused a new revision "
            f"(ConflictException) and the type cannot be replaced ({error}). Delete the assets of the type "
            "(or grant datazone:DeleteAssetType), then update the stack again; the functions keep working "
            "with the current revision meanwhile."
        )
        logger.warning(note, extra={"assetType": name})
        return Provisioned(str(existing["revision"]), False, note)
    logger.info("asset type replaced: no asset used it", extra={"assetType": name})
    return Provisioned(_create_resolving(datazone_client, domain_id, project_id, spec, form_revisions), True)


def _existing(
    datazone_client: DataZoneClient, domain_id: str, project_id: str, name: str
) -> dict[str, Any] | None:
    existing = _get_or_none(datazone_client.get_asset_type, domainIdentifier=domain_id, identifier=name)
    if existing is not None and existing.get("owningProjectId") != project_id:
        raise AssetTypeError(
            f"asset type {name} already exists in domain {domain_id}, owned by project "
            f"{existing.get('owningProjectId')}, not {project_id}: choose another assetTypeName or deploy "
            "with that project"
        )
    return existing


def _matches(existing: Mapping[str, Any], wanted: Mapping[str, Mapping[str, Any]], description: str) -> bool:
    if (existing.get("description") or "") != description:
        return False
    have, want = _forms_of(existing), _forms_of_input(wanted)
    if have == want:
        return True
    # DataZone may add AssetCommonDetailsForm by itself, and may refuse it declared (readings.py,
    # asset_type_common_details): a type whose only difference is that form, as DataZone made it, is ours.
    # Its revision must still be the one wanted (the latest): only its name and `required` may differ.
    common = [entry[:2] for entry in want.values() if entry[0] == COMMON_DETAILS_TYPE]
    added = [entry[:2] for entry in have.values() if entry[0] == COMMON_DETAILS_TYPE]
    rest = {form: entry for form, entry in have.items() if entry[0] != COMMON_DETAILS_TYPE}
    wanted_rest = {form: entry for form, entry in want.items() if entry[0] != COMMON_DETAILS_TYPE}
    return len(common) == 1 and added == common and rest == wanted_rest


def _create_resolving(
    datazone_client: DataZoneClient,
    domain_id: str,
    project_id: str,
    spec: Mapping[str, Any],
    form_revisions: Mapping[str, str],
    resolved: tuple[str, str, dict[str, FormEntryInputTypeDef]] | None = None,
) -> str:
    """CreateAssetType, and on a ValidationException the two refusals DataZone's documentation leaves open:
    a managed form revision no longer the latest (resolved again, then retried once), and a declared
    AssetCommonDetailsForm that DataZone adds by itself (retried once without it). `resolved`: the
    caller's `_desired`, when it has just read it."""
    name, description, wanted = resolved or _desired(datazone_client, domain_id, spec, form_revisions)
    try:
        return _create(datazone_client, domain_id, project_id, name, description, wanted)
    except Invalid as error:
        refusal = error
    name, description, again = _desired(datazone_client, domain_id, spec, form_revisions)
    if again != wanted:
        logger.info("managed form revisions moved on; creating again", extra={"assetType": name})
        return _create(datazone_client, domain_id, project_id, name, description, again)
    without = {
        form: entry for form, entry in wanted.items() if entry["typeIdentifier"] != COMMON_DETAILS_TYPE
    }
    if without == wanted:
        raise refusal
    logger.info(
        "CreateAssetType refused the declared common details form; DataZone adds it",
        extra={"assetType": name, "error": str(refusal)},
    )
    return _create(datazone_client, domain_id, project_id, name, description, without)


def _create(
    datazone_client: DataZoneClient,
    domain_id: str,
    project_id: str,
    name: str,
    description: str,
    wanted: Mapping[str, FormEntryInputTypeDef],
) -> str:
    created = datazone_client.create_asset_type(
        domainIdentifier=domain_id,
        name=name,
        description=description,
        formsInput=dict(wanted),
        owningProjectIdentifier=project_id,
    )
    return str(created["revision"])


def delete_asset_type(datazone_client: DataZoneClient, domain_id: str, name: str) -> bool:
    """Delete the asset type; False when it was already gone. Fails while assets of the type exist."""
    try:
        instrument(datazone_client).delete_asset_type(domainIdentifier=domain_id, identifier=name)
    except NotFound:
        return False
    except (Conflict, Invalid) as error:  # which of the two DataZone answers is undocumented (readings.py)
        raise AssetTypeError(
            f"asset type {name} is still used by assets, so it cannot be deleted; delete them first (or keep "
            f"the default assetTypeRemovalPolicy 'retain'): {error}"
        ) from error
    return True


def create_form_types(
    datazone_client: DataZoneClient, domain_id: str, project_id: str, smithy_dir: Path | str
) -> dict[str, str]:
    """Make one form type per `<Name>.smithy` file exist with that model; return name -> revision.

    The stack does this with AWS::DataZone::FormType; this is for environments without CloudFormation
    (the local demo).
    """
    datazone_client = instrument(datazone_client)
    revisions: dict[str, str] = {}
    paths = sorted(Path(smithy_dir).glob("*.smithy"))
    if not paths:
        raise AssetTypeError(f"no form types (*.smithy) in {smithy_dir}")
    for path in paths:
        name, model = path.stem, path.read_text(encoding="utf-8")
        existing = _get_or_none(
            datazone_client.get_form_type, domainIdentifier=domain_id, formTypeIdentifier=name
        )
        if existing is not None and (existing.get("model") or {}).get("smithy") == model:
            revisions[name] = str(existing["revision"])
            continue
        created = datazone_client.create_form_type(
            domainIdentifier=domain_id,
            name=name,
            model={"smithy": model},
            owningProjectIdentifier=project_id,
            status="ENABLED",
        )
        revisions[name] = str(created["revision"])
    return revisions


def _desired(
    datazone_client: DataZoneClient,
    domain_id: str,
    spec: Mapping[str, Any],
    form_revisions: Mapping[str, str],
) -> tuple[str, str, dict[str, FormEntryInputTypeDef]]:
    """Validate the spec and resolve every form's revision: (name, description, formsInput)."""
    name = spec.get("name")
    forms = spec.get("forms")
    if not isinstance(name, str) or not 1 <= len(name) <= ASSET_TYPE_NAME_MAX:
        raise AssetTypeError(
            f"the asset type needs a name of 1-{ASSET_TYPE_NAME_MAX} characters, got {name!r}"
        )
    if name.startswith(MANAGED_FORM_PREFIX):
        raise AssetTypeError(f"asset type names starting with {MANAGED_FORM_PREFIX} are DataZone's own")
    if not isinstance(forms, Mapping) or not 1 <= len(forms) <= _MAX_FORMS:
        raise AssetTypeError(f"asset type {name} needs 1-{_MAX_FORMS} forms")
    description = spec.get("description") or ""
    if not isinstance(description, str) or len(description) > _DESCRIPTION_MAX:
        raise AssetTypeError(
            f"asset type {name}: the description must be a string of at most {_DESCRIPTION_MAX}"
        )
    managed: dict[str, str] = {}
    wanted: dict[str, FormEntryInputTypeDef] = {}
    for form_name, form in forms.items():
        if not _FORM_NAME.fullmatch(form_name):
            raise AssetTypeError(
                f"form name {form_name!r} is not a DataZone FormName (letters, digits, _; no dots)"
            )
        type_name = form.get("typeName") if isinstance(form, Mapping) else None
        if not isinstance(type_name, str):
            raise AssetTypeError(f"form {form_name} needs a typeName")
        required = form.get("required", False)
        if not isinstance(required, bool):
            raise AssetTypeError(f"form {form_name}: required must be true or false, got {required!r}")
        if type_name.startswith(MANAGED_FORM_PREFIX):
            if type_name not in managed:
                found = datazone_client.get_form_type(
                    domainIdentifier=domain_id, formTypeIdentifier=type_name
                )
                managed[type_name] = str(found["revision"])
            revision = managed[type_name]
        elif type_name in form_revisions:
            revision = str(form_revisions[type_name])
        else:
            raise AssetTypeError(f"form {form_name}: no revision given for custom form type {type_name}")
        wanted[form_name] = {"typeIdentifier": type_name, "typeRevision": revision, "required": required}
    return name, description, wanted


def _forms_of(asset_type: Mapping[str, Any]) -> dict[str, tuple[str, str, bool]]:
    return {
        form_name: (str(entry["typeName"]), str(entry["typeRevision"]), bool(entry.get("required")))
        for form_name, entry in (asset_type.get("formsOutput") or {}).items()
    }


def _forms_of_input(forms_input: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[str, str, bool]]:
    return {
        form_name: (str(entry["typeIdentifier"]), str(entry["typeRevision"]), bool(entry["required"]))
        for form_name, entry in forms_input.items()
    }


def _get_or_none(operation: Any, **params: Any) -> dict[str, Any] | None:
    try:
        return dict(operation(**params))
    except NotFound:
        return None
