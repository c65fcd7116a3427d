"""Assets and their revisions: CreateAsset, GetAsset, CreateAssetRevision, DeleteAsset.

Form content is checked against the form types the asset type pins (their Smithy models); every write
reaches the search index. `AssetView` is the Python-side view tests and the demo read.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from local.standins.datazone import glossaries, subscriptions
from local.standins.datazone.index import build_doc
from local.standins.datazone.records import Asset, AssetRevision, AssetType, Form, FormEntry
from local.standins.datazone.state import Domain, Store
from local.standins.datazone.types import (
    COMMON_DETAILS_TYPE,
    FORM_NAME,
    MANAGED_PREFIX,
    MAX_FORMS,
    check_latest_managed,
    find_asset_type,
    find_form_type,
    form_type_of,
)
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import conflict, not_found, validation
from local.standins.smithy.validator import FormValidator

MAX_FORM_CONTENT = 300_000  # characters


@dataclass(frozen=True)
class AssetView:
    id: str
    name: str
    description: str | None
    external_identifier: str | None
    type_name: str
    type_revision: str
    revision: str
    owning_project_id: str
    forms: dict[str, Any]  # form name -> parsed content
    form_types: dict[str, tuple[str, str]]  # form name -> (type name, type revision)
    listing_id: str | None
    listing_status: str | None
    listed_revision: str | None  # the asset revision the listing shows
    glossary_terms: tuple[str, ...] = ()


def live_asset(domain: Domain, asset_id: str) -> Asset:
    asset = domain.assets.get(asset_id)
    if asset is None or asset.deleted:
        raise not_found(f"Asset {asset_id} not found")
    return asset


def _type_label(store: Store, domain: Domain, name: str, revision: str) -> str:
    form_type = find_form_type(store, domain, name, revision) or find_form_type(store, domain, name)
    namespace = form_type.namespace_label if form_type else domain.id.replace("-", "_")
    return f"{namespace}#{name.removeprefix(MANAGED_PREFIX)}@{revision}"


def _checked_forms(
    store: Store, domain: Domain, asset_type: AssetType, forms_input: list[dict[str, Any]]
) -> list[Form]:
    """Validate formsInput against the asset type's pinned form types and their Smithy models; a form the
    asset type does not define is an extra metadata form of the type its typeIdentifier names."""
    if len(forms_input) > MAX_FORMS:
        raise validation(f"An asset has at most {MAX_FORMS} forms")
    label = f"{asset_type.name}@{asset_type.revision}"
    names = [form["formName"] for form in forms_input]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise validation(f"Form {duplicates[0]} is given more than once")
    missing = [n for n, entry in asset_type.forms.items() if entry.required and n not in names]
    if missing:
        raise validation(f"Form {missing[0]} is required by asset type {label} but was not provided")
    return [
        _checked_form(store, domain, asset_type.forms[form["formName"]], form)
        if form["formName"] in asset_type.forms
        else _checked_form(store, domain, _extra_form_entry(store, domain, label, form), form)
        for form in forms_input
    ]


def _extra_form_entry(store: Store, domain: Domain, label: str, form: dict[str, Any]) -> FormEntry:
    """An extra metadata form (one the asset type does not define): of the form type its typeIdentifier
    names, at its typeRevision or, without one, the latest."""
    form_name = form["formName"]
    if not form.get("typeIdentifier"):
        raise validation(
            f"Form {form_name} is not defined in asset type {label}; an extra form needs a typeIdentifier"
        )
    if not FORM_NAME.fullmatch(form_name):
        raise validation(f"Form name {form_name!r} does not match the FormName pattern")
    found = find_form_type(store, domain, form["typeIdentifier"], form.get("typeRevision"))
    if found is None:
        revision = f" revision {form['typeRevision']}" if form.get("typeRevision") else ""
        raise validation(f"Form {form_name}: form type {form['typeIdentifier']}{revision} does not exist")
    if found.status != "ENABLED":
        raise validation(f"Form {form_name}: form type {found.name} revision {found.revision} is disabled")
    return FormEntry(found.name, found.revision, required=False)


def _checked_form(store: Store, domain: Domain, pinned: FormEntry, form: dict[str, Any]) -> Form:
    form_name = form["formName"]
    given_type = form.get("typeIdentifier") or pinned.type_name
    given_revision = form.get("typeRevision") or pinned.type_revision
    if (given_type, given_revision) != (pinned.type_name, pinned.type_revision):
        expected = _type_label(store, domain, pinned.type_name, pinned.type_revision)
        provided = _type_label(store, domain, given_type, given_revision)
        raise validation(f"Form {form_name} expected form {expected} but was provided {provided}")
    form_type = find_form_type(store, domain, pinned.type_name, pinned.type_revision)
    if form_type is None:  # the asset type pins it, so it cannot vanish; guard anyway
        raise validation(f"Form type {pinned.type_name}@{pinned.type_revision} no longer exists")
    check_latest_managed(store, domain, form_type)
    text = form.get("content")
    text = "{}" if text is None else text
    if len(text) > MAX_FORM_CONTENT:
        raise validation(f"Form {form_name} content is {len(text)} characters; at most {MAX_FORM_CONTENT}")
    try:
        parsed = json.loads(text)
    except ValueError:
        raise validation(f"Form {form_name} content is not valid JSON") from None
    validator = FormValidator(form_type.model, bool(store.reading("reject_unknown_form_members")))
    errors = validator.validate(form_type.structure, parsed, form_name)
    if errors:
        raise validation(", ".join(errors))
    if store.reading("normalize_form_content"):
        text = json.dumps(parsed, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return Form(form_name, form_type.name, form_type.revision, text, parsed)


def _check_glossary_terms(domain: Domain, params: Params) -> None:
    glossaries.check_asset_terms(domain, params.get("glossaryTerms"))


def _new_revision(
    store: Store, number: str, params: Params, asset_type: AssetType, forms: list[Form]
) -> AssetRevision:
    """A new asset revision from a CreateAsset or CreateAssetRevision request."""
    return AssetRevision(
        revision=number,
        name=params["name"],
        description=params.get("description"),
        type_revision=asset_type.revision,
        forms=forms,
        glossary_terms=params.get("glossaryTerms"),
        prediction=params.get("predictionConfiguration"),
        created_at=store.now(),
    )


def create_asset(store: Store, domain: Domain, params: Params) -> Response:
    def produce() -> Response:
        project = store.project(domain, params["owningProjectIdentifier"], not_found)
        asset_type = find_asset_type(domain, params["typeIdentifier"])
        if asset_type is None:
            raise not_found(f"Asset type {params['typeIdentifier']} not found")
        if params.get("typeRevision"):
            asset_type = find_asset_type(domain, params["typeIdentifier"], params["typeRevision"])
            if asset_type is None:
                raise validation(
                    f"Asset type {params['typeIdentifier']} has no revision {params['typeRevision']}"
                )
        forms = _checked_forms(store, domain, asset_type, params.get("formsInput") or [])
        _check_glossary_terms(domain, params)
        external_id = params.get("externalIdentifier")
        if external_id:
            holder = domain.by_external_id.get(external_id)
            if holder is not None:
                # Undocumented message shape; public code parses the asset id out of it.
                if store.reading("conflict_message_names_asset"):
                    raise conflict(f"Conflict with asset {holder}")
                raise conflict("An asset with this externalIdentifier already exists in the domain")
        revision = _new_revision(store, "1", params, asset_type, forms)
        asset = Asset(store.new_id(), external_id, asset_type.name, project, [revision])
        domain.assets[asset.id] = asset
        if external_id:
            domain.by_external_id[external_id] = asset.id
        _index(store, domain, asset)
        return _asset_output(store, domain, asset, revision, with_prediction=True)

    return store.idempotent(domain, "CreateAsset", params, produce)


def get_asset(store: Store, domain: Domain, params: Params) -> Response:
    asset = live_asset(domain, params["identifier"])
    revision = asset.latest
    if params.get("revision"):
        found = asset.revision(params["revision"])
        if found is None:
            raise not_found(f"Asset {asset.id} has no revision {params['revision']}")
        revision = found
    return _asset_output(store, domain, asset, revision, with_prediction=False)


def create_asset_revision(store: Store, domain: Domain, params: Params) -> Response:
    def produce() -> Response:
        asset = live_asset(domain, params["identifier"])
        if params.get("typeRevision"):
            type_revision = params["typeRevision"]
        elif store.reading("revision_keeps_type_revision"):
            type_revision = asset.latest.type_revision
        else:
            latest_type = find_asset_type(domain, asset.type_name)
            type_revision = latest_type.revision if latest_type else asset.latest.type_revision
        asset_type = find_asset_type(domain, asset.type_name, type_revision)
        if asset_type is None:
            raise validation(f"Asset type {asset.type_name} has no revision {type_revision}")
        current = asset.latest.type_revision
        if type_revision != current and not store.reading("revision_changes_type_revision"):
            raise validation(
                f"Asset {asset.id} is of asset type {asset.type_name} revision {current}; a revision "
                f"cannot change it to revision {type_revision}"
            )
        forms = _checked_forms(store, domain, asset_type, params.get("formsInput") or [])
        _check_glossary_terms(domain, params)
        revision = _new_revision(store, str(len(asset.revisions) + 1), params, asset_type, forms)
        asset.revisions.append(revision)
        _index(store, domain, asset)
        return _asset_output(store, domain, asset, revision, with_prediction=True)

    return store.idempotent(domain, "CreateAssetRevision", params, produce)


def delete_asset(store: Store, domain: Domain, params: Params) -> Response:
    """Deleting an asset deletes its listing too ("Delete an Amazon DataZone asset", user guide), except
    while the listing has subscribers: then it is refused until they are revoked."""
    asset = live_asset(domain, params["identifier"])
    listing = domain.listings.get(asset.listing_id) if asset.listing_id else None
    if listing is not None:
        subscribed = subscriptions.approved(domain, listing.id)
        if subscribed:
            message = (
                f"Asset {asset.id} cannot be deleted: its listing {listing.id} has {len(subscribed)} "
                "subscription(s); revoke them first"
            )
            if store.reading("subscribed_delete_refusal") == "validation":
                raise validation(message)
            raise conflict(message)
        if listing.status(domain.calls) in ("ACTIVE", "CREATING") and store.reading(
            "delete_requires_unpublish"
        ):
            raise conflict(f"Asset {asset.id} is published (listing {listing.id}); unpublish it first")
        del domain.listings[listing.id]
    asset.deleted = True
    asset.listing_id = None
    if asset.external_identifier:
        domain.by_external_id.pop(asset.external_identifier, None)
    domain.search.write(asset.id, None, int(store.reading("search_lag_calls")))
    return {}


def _index(store: Store, domain: Domain, asset: Asset) -> None:
    doc = build_doc(asset, asset.latest, lambda form: form_type_of(store, domain, form))
    domain.search.write(asset.id, doc, int(store.reading("search_lag_calls")))


def forms_output(forms: Iterable[Form]) -> list[dict[str, Any]]:
    return [
        {
            "formName": f.form_name,
            "typeName": f.type_name,
            "typeRevision": f.type_revision,
            "content": f.content,
        }
        for f in forms
    ]


def _listing_details(domain: Domain, asset: Asset) -> dict[str, Any] | None:
    listing = domain.listings.get(asset.listing_id) if asset.listing_id else None
    if listing is None:
        return None
    return {"listingId": listing.id, "listingStatus": listing.status(domain.calls)}


def _asset_output(
    store: Store, domain: Domain, asset: Asset, revision: AssetRevision, with_prediction: bool
) -> Response:
    first = asset.revisions[0]
    return compact(
        {
            "id": asset.id,
            "name": revision.name,
            "typeIdentifier": asset.type_name,
            "typeRevision": revision.type_revision,
            "externalIdentifier": asset.external_identifier,
            "revision": revision.revision,
            "description": revision.description,
            "createdAt": revision.created_at,
            "createdBy": store.principal,
            "firstRevisionCreatedAt": first.created_at,
            "firstRevisionCreatedBy": store.principal,
            "glossaryTerms": revision.glossary_terms,
            "owningProjectId": asset.owning_project_id,
            "domainId": domain.id,
            "listing": _listing_details(domain, asset),
            "formsOutput": forms_output(revision.forms),
            "predictionConfiguration": revision.prediction if with_prediction else None,
        }
    )


def asset_view(domain: Domain, asset: Asset) -> AssetView:
    latest = asset.latest
    listing = domain.listings.get(asset.listing_id) if asset.listing_id else None
    return AssetView(
        id=asset.id,
        name=latest.name,
        description=latest.description,
        external_identifier=asset.external_identifier,
        type_name=asset.type_name,
        type_revision=latest.type_revision,
        revision=latest.revision,
        owning_project_id=asset.owning_project_id,
        forms={f.form_name: copy.deepcopy(f.parsed) for f in latest.forms},
        form_types={f.form_name: (f.type_name, f.type_revision) for f in latest.forms},
        listing_id=listing.id if listing else None,
        listing_status=listing.status(domain.calls) if listing else None,
        listed_revision=listing.latest.asset_revision if listing else None,
        glossary_terms=tuple(latest.glossary_terms or ()),
    )


def linked(domain: Domain, source_identifier: str) -> list[Asset]:
    """Live assets whose AssetCommonDetailsForm sourceIdentifier is this one."""
    found = []
    for asset in domain.live_assets():
        for form in asset.latest.forms:
            parsed = form.parsed if isinstance(form.parsed, dict) else {}
            if form.type_name == COMMON_DETAILS_TYPE and parsed.get("sourceIdentifier") == source_identifier:
                found.append(asset)
                break
    return found
