"""Form types and asset types: DataZone's managed form types, CreateFormType/GetFormType, and
CreateAssetType/GetAssetType/DeleteAssetType. Both are revisioned and immutable: a changed definition
adds a revision, the same one answers the existing revision.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from local.standins.datazone.governance import require_type_grant
from local.standins.datazone.records import AssetType, Form, FormEntry, FormType
from local.standins.datazone.state import Domain, Store
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import conflict, not_found, validation
from local.standins.smithy.model import SmithyError
from local.standins.smithy.parser import parse

MAX_FORMS = 10
FORM_NAME = re.compile(r"(?![0-9_])\w+$|^_\w*[a-zA-Z0-9]\w*")
MANAGED_PREFIX = "amazon.datazone."
COMMON_DETAILS_TYPE = "amazon.datazone.AssetCommonDetailsFormType"

_MANAGED_DIR = Path(__file__).with_name("managed_forms")
# Managed form type -> (model file, revision). Revisions as AWS documentation shows them in use:
# AssetCommonDetailsFormType "6" (SageMaker Unified Studio lineage troubleshooting guide, GetAsset output);
# RelationalTableFormType "1" (aws-samples DataZone lineage sample pins it).
MANAGED_FORM_TYPES: dict[str, tuple[str, str]] = {
    COMMON_DETAILS_TYPE: ("AssetCommonDetailsFormType.smithy", "6"),
    "amazon.datazone.RelationalTableFormType": ("RelationalTableFormType.smithy", "1"),
}


# ------------------------------------------------------------------------------ managed form types


def managed_form_types(store: Store) -> dict[str, list[FormType]]:
    """DataZone's managed form types, as a new domain has them (each created at the clock's "now")."""
    found: dict[str, list[FormType]] = {}
    for name, (file_name, revision) in MANAGED_FORM_TYPES.items():
        text = (_MANAGED_DIR / file_name).read_text(encoding="utf-8")
        model = parse(text)
        managed = FormType(
            name=name,
            revision=revision,
            smithy_text=text,
            model=model,
            structure=name.removeprefix(MANAGED_PREFIX),
            namespace_label=model.namespace,
            owning_project_id=None,
            description=None,
            status="ENABLED",
            created_at=store.now(),
            managed=True,
        )
        found[name] = [managed]
    return found


def _without_members(form_type: FormType, undeclared: str) -> FormType:
    """A managed form type as served under the reading `managed_form_members_undeclared`."""
    prefix = form_type.name.removeprefix(MANAGED_PREFIX) + "."
    paths = tuple(
        sorted(p.strip()[len(prefix) :] for p in undeclared.split(",") if p.strip().startswith(prefix))
    )
    return _pruned(form_type, paths) if paths else form_type


_PRUNED: dict[tuple[str, str, tuple[str, ...]], FormType] = {}


def _pruned(form_type: FormType, paths: tuple[str, ...]) -> FormType:
    key = (form_type.name, form_type.revision, paths)
    if key not in _PRUNED:
        _PRUNED[key] = _prune(form_type, paths)
    return _PRUNED[key]


def _prune(form_type: FormType, paths: tuple[str, ...]) -> FormType:
    text = form_type.smithy_text
    model = form_type.model
    for path in paths:
        *parents, member = path.split(".")
        shape = model.local(form_type.structure)
        for step in parents:  # through structure members and list elements to the structure holding it
            if shape is None or step not in shape.members:
                raise ValueError(f"{form_type.name} has no member path {path}")
            shape = model.shape(shape.members[step].target)
            if shape.type in ("list", "set"):
                shape = model.shape(shape.members["member"].target)
        if shape is None or member not in shape.members:
            raise ValueError(f"{form_type.name} has no member path {path}")
        text = _drop_member(text, shape.name, member)
        model = parse(text)
    return replace(form_type, smithy_text=text, model=model)


def _drop_member(text: str, structure: str, member: str) -> str:
    """The model text without one member (and the trait lines above it) of one structure."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if re.match(rf"\s*structure\s+{structure}\b", line))
    at = next(i for i in range(start, len(lines)) if re.match(rf"\s*{member}\s*:", lines[i]))
    first = at
    while first > start + 1 and lines[first - 1].strip().startswith("@"):
        first -= 1
    return "".join(lines[:first] + lines[at + 1 :])


# ---------------------------------------------------------------------------------------- form types


def find_form_type(store: Store, domain: Domain, name: str, revision: str | None = None) -> FormType | None:
    revisions = domain.form_types.get(name)
    if not revisions:
        return None
    found = (
        revisions[-1] if revision is None else next((f for f in revisions if f.revision == revision), None)
    )
    if found is not None and found.managed:
        undeclared = str(store.reading("managed_form_members_undeclared"))
        return _without_members(found, undeclared)
    return found


def create_form_type(store: Store, domain: Domain, params: Params) -> Response:
    name: str = params["name"]
    project = store.project(domain, params["owningProjectIdentifier"], validation)
    require_type_grant(domain, project, "CREATE_FORM_TYPE", "CreateFormType")
    if name.startswith(MANAGED_PREFIX):
        raise validation(f"Form type names starting with {MANAGED_PREFIX} are reserved for DataZone")
    text = (params.get("model") or {}).get("smithy")
    if not text:
        raise validation("model.smithy is required")
    try:
        model = parse(text)
    except SmithyError as error:
        raise validation(f"Invalid Smithy model: {error}") from None
    structure = model.local(name)
    if structure is None or structure.type != "structure":
        raise validation(f"The model must define a structure named {name} (the form type's name)")
    revisions = domain.form_types.setdefault(name, [])
    latest = revisions[-1] if revisions else None
    if latest is not None and latest.owning_project_id != project:
        raise conflict(f"Form type {name} already exists, owned by project {latest.owning_project_id}")
    # Form types are immutable: the same model answers the existing revision, a changed one adds one.
    if latest is None or latest.model != model:
        latest = FormType(
            name=name,
            revision=str(len(revisions) + 1),
            smithy_text=text,
            model=model,
            structure=name,
            namespace_label=model.namespace or domain.id.replace("-", "_"),
            owning_project_id=project,
            description=params.get("description"),
            status=params.get("status") or "ENABLED",
            created_at=store.now(),
        )
        revisions.append(latest)
    return _form_type_output(store, domain, latest, with_model=False)


def get_form_type(store: Store, domain: Domain, params: Params) -> Response:
    identifier = params["formTypeIdentifier"]
    form_type = find_form_type(store, domain, identifier, params.get("revision"))
    if form_type is None:
        revision = f" revision {params['revision']}" if params.get("revision") else ""
        raise not_found(f"Form type {identifier}{revision} not found")
    return _form_type_output(store, domain, form_type, with_model=True)


def _form_type_output(store: Store, domain: Domain, form_type: FormType, with_model: bool) -> Response:
    output: Response = {
        "domainId": domain.id,
        "name": form_type.name,
        "revision": form_type.revision,
        "description": form_type.description,
        "owningProjectId": form_type.owning_project_id,
        "originDomainId": None if form_type.managed else domain.id,
        "originProjectId": form_type.owning_project_id,
    }
    if with_model:
        output.update(
            model={"smithy": form_type.smithy_text},
            status=form_type.status,
            createdAt=form_type.created_at,
            createdBy=None if form_type.managed else store.principal,
        )
    return compact(output)


# ---------------------------------------------------------------------------------- asset types


def find_asset_type(domain: Domain, name: str, revision: str | None = None) -> AssetType | None:
    revisions = domain.asset_types.get(name)
    if not revisions:
        return None
    if revision is None:
        return revisions[-1]
    return next((at for at in revisions if at.revision == revision), None)


def create_asset_type(store: Store, domain: Domain, params: Params) -> Response:
    name: str = params["name"]
    project = store.project(domain, params["owningProjectIdentifier"], validation)
    require_type_grant(domain, project, "CREATE_ASSET_TYPE", "CreateAssetType")
    if name.startswith(MANAGED_PREFIX):
        raise validation(f"Asset type names starting with {MANAGED_PREFIX} are reserved for DataZone")
    forms_input: dict[str, Any] = params.get("formsInput") or {}
    if len(forms_input) > MAX_FORMS:
        raise validation(f"An asset type has at most {MAX_FORMS} forms")
    forms: dict[str, FormEntry] = {}
    for form_name, entry in forms_input.items():
        if not FORM_NAME.fullmatch(form_name):
            raise validation(f"Form name {form_name!r} does not match the FormName pattern (no dots)")
        form_type = find_form_type(store, domain, entry["typeIdentifier"], entry["typeRevision"])
        if form_type is None:
            raise validation(
                f"Form type {entry['typeIdentifier']} revision {entry['typeRevision']} does not exist"
            )
        if form_type.status != "ENABLED":
            raise validation(f"Form type {form_type.name} revision {form_type.revision} is disabled")
        check_latest_managed(store, domain, form_type)
        forms[form_name] = FormEntry(form_type.name, form_type.revision, bool(entry.get("required")))
    _common_details(store, domain, forms)
    revisions = domain.asset_types.setdefault(name, [])
    latest = revisions[-1] if revisions else None
    if latest is not None and latest.owning_project_id != project:
        raise conflict(f"Asset type {name} already exists, owned by project {latest.owning_project_id}")
    if latest is not None and store.reading("asset_type_create_existing") == "conflict":
        raise conflict(f"Asset type {name} already exists in domain {domain.id}")
    if latest is None or latest.forms != forms:
        latest = AssetType(
            name, str(len(revisions) + 1), params.get("description"), forms, project, store.now()
        )
        revisions.append(latest)
    return _asset_type_output(store, domain, latest)


COMMON_DETAILS_FORM = "AssetCommonDetailsForm"


def _common_details(store: Store, domain: Domain, forms: dict[str, FormEntry]) -> None:
    """The reading `asset_type_common_details`: DataZone adding AssetCommonDetailsForm by itself."""
    reading = str(store.reading("asset_type_common_details"))
    declared = [name for name, entry in forms.items() if entry.type_name == COMMON_DETAILS_TYPE]
    if reading == "refused" and declared:
        raise validation(
            f"Form {declared[0]} of type {COMMON_DETAILS_TYPE} cannot be declared: DataZone adds "
            f"{COMMON_DETAILS_FORM} to every asset type"
        )
    if reading in ("added", "refused") and not declared:
        latest = domain.form_types[COMMON_DETAILS_TYPE][-1]
        forms[COMMON_DETAILS_FORM] = FormEntry(COMMON_DETAILS_TYPE, latest.revision, False)


def check_latest_managed(store: Store, domain: Domain, form_type: FormType) -> None:
    """The reading `managed_form_revision_must_be_latest`: a managed form type only at its latest revision."""
    if not form_type.managed or not store.reading("managed_form_revision_must_be_latest"):
        return
    latest = domain.form_types[form_type.name][-1].revision
    if form_type.revision != latest:
        raise validation(
            f"Form type {form_type.name} revision {form_type.revision} is not the latest revision ({latest})"
        )


def publish_managed_revision(store: Store, domain: Domain, name: str) -> str:
    """A new revision of a managed form type (as AWS updates its own types), same model; its revision."""
    revisions = domain.form_types[name]
    newest = replace(revisions[-1], revision=str(int(revisions[-1].revision) + 1), created_at=store.now())
    revisions.append(newest)
    return newest.revision


def get_asset_type(store: Store, domain: Domain, params: Params) -> Response:
    asset_type = find_asset_type(domain, params["identifier"], params.get("revision"))
    if asset_type is None:
        revision = f" revision {params['revision']}" if params.get("revision") else ""
        raise not_found(f"Asset type {params['identifier']}{revision} not found")
    return _asset_type_output(store, domain, asset_type)


def delete_asset_type(store: Store, domain: Domain, params: Params) -> Response:
    name = params["identifier"]
    if not domain.asset_types.get(name):
        raise not_found(f"Asset type {name} not found")
    users = [asset.id for asset in domain.live_assets() if asset.type_name == name]
    if users:
        # The reading `delete_asset_type_in_use`: which error DataZone answers (undocumented).
        refuse = validation if store.reading("delete_asset_type_in_use") == "validation" else conflict
        raise refuse(f"Asset type {name} is in use by {len(users)} asset(s), e.g. {users[0]}")
    del domain.asset_types[name]
    return {}


def _asset_type_output(store: Store, domain: Domain, asset_type: AssetType) -> Response:
    return compact(
        {
            "domainId": domain.id,
            "name": asset_type.name,
            "revision": asset_type.revision,
            "description": asset_type.description,
            "formsOutput": {
                form_name: {
                    "typeName": e.type_name,
                    "typeRevision": e.type_revision,
                    "required": e.required,
                }
                for form_name, e in asset_type.forms.items()
            },
            "owningProjectId": asset_type.owning_project_id,
            "originDomainId": domain.id,
            "originProjectId": asset_type.owning_project_id,
            "createdAt": asset_type.created_at,
            "createdBy": store.principal,
            "updatedAt": asset_type.created_at,
            "updatedBy": store.principal,
        }
    )


def form_type_of(store: Store, domain: Domain, form: Form) -> FormType:
    """The form type a stored form was validated against (an asset type pins it, so it is there)."""
    form_type = find_form_type(store, domain, form.type_name, form.type_revision)
    if form_type is None:
        raise KeyError(f"{form.type_name}@{form.type_revision}")
    return form_type
