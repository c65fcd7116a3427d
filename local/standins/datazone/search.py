"""Search (the inventory, as the lagging index shows it) and SearchListings (published assets, at the
revision each listing shows): text, filters, sort and paging over indexed documents.
"""

from __future__ import annotations

import json
from typing import Any

from local.standins.datazone.assets import forms_output
from local.standins.datazone.index import (
    SORT_KEYS,
    Doc,
    build_doc,
    check_clause,
    filter_attributes,
    matches,
    text_matches,
)
from local.standins.datazone.products import search_products
from local.standins.datazone.records import Listing
from local.standins.datazone.state import Domain, Store, paginate
from local.standins.datazone.types import form_type_of
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import validation

MAX_SEARCH_TEXT = 512  # SearchText's documented maximum
SEARCH_TYPE_FILTER_READINGS = ("honoured", "unindexed", "rejected")


def _select(store: Store, docs: list[Doc], params: Params) -> list[Doc]:
    """Apply owningProjectIdentifier, searchText/searchIn, filters and sort to indexed docs."""
    project = params.get("owningProjectIdentifier")
    if project:
        docs = [doc for doc in docs if doc.owning_project_id == project]
    text = params.get("searchText")
    if text and len(text) > MAX_SEARCH_TEXT:
        raise validation(f"searchText is {len(text)} characters; at most {MAX_SEARCH_TEXT}")
    if text:
        fields = [item["attribute"] for item in params["searchIn"]] if params.get("searchIn") else None
        with_external_id = bool(store.reading("search_text_matches_external_identifier"))
        docs = [doc for doc in docs if text_matches(doc, text, fields, with_external_id)]
    if params.get("filters"):
        check_clause(params["filters"])
        unindexed: frozenset[str] = frozenset()
        reading = store.reading("search_type_filter")
        if reading not in SEARCH_TYPE_FILTER_READINGS:
            raise ValueError(f"search_type_filter must be one of {SEARCH_TYPE_FILTER_READINGS}")
        if reading != "honoured" and "typeName" in filter_attributes(params["filters"]):
            if reading == "rejected":
                raise validation("typeName is not a valid search filter attribute")
            unindexed = frozenset({"typeName"})
        docs = [doc for doc in docs if matches(params["filters"], doc, unindexed)]
    docs = sorted(docs, key=lambda doc: (doc.first_created_at, doc.asset_id))
    sort = params.get("sort")
    if sort:
        key = SORT_KEYS.get(sort["attribute"])
        if key is None:
            raise validation(f"Sorting by {sort['attribute']!r} is not supported")
        docs = sorted(docs, key=key, reverse=sort.get("order") == "DESCENDING")
    return docs


def search(store: Store, domain: Domain, params: Params) -> Response:
    if params["searchScope"] == "DATA_PRODUCT":
        return search_products(store, domain, params)
    docs = domain.search.begin_search()
    if params["searchScope"] != "ASSET":
        return {"items": [], "totalMatchCount": 0}  # the stand-in has no glossaries in its index
    selected = _select(store, docs, params)
    page, token = paginate(selected, params)
    with_forms = "FORMS" in (params.get("additionalAttributes") or [])
    items = [{"assetItem": _asset_item(store, domain, doc, with_forms)} for doc in page]
    return compact({"items": items, "nextToken": token, "totalMatchCount": len(selected)})


def _asset_item(store: Store, domain: Domain, doc: Doc, with_forms: bool) -> dict[str, Any]:
    return compact(
        {
            "domainId": domain.id,
            "identifier": doc.asset_id,
            "name": doc.name,
            "typeIdentifier": doc.type_name,
            "typeRevision": doc.type_revision,
            "externalIdentifier": doc.external_identifier,
            "description": doc.description,
            "createdAt": doc.created_at,
            "createdBy": store.principal,
            "firstRevisionCreatedAt": doc.first_created_at,
            "firstRevisionCreatedBy": store.principal,
            "glossaryTerms": list(doc.glossary_terms) or None,
            "owningProjectId": doc.owning_project_id,
            "additionalAttributes": {"formsOutput": forms_output(doc.forms)} if with_forms else None,
        }
    )


def search_listings(store: Store, domain: Domain, params: Params) -> Response:
    """Published (ACTIVE) listings, at the asset revision each listing shows."""
    docs: list[Doc] = []
    by_asset: dict[str, Listing] = {}
    for listing in domain.listings.values():
        applied = listing.applied(domain.calls)
        if applied is None or applied.status != "ACTIVE":
            continue
        asset = domain.assets[listing.asset_id]
        revision = asset.revision(applied.asset_revision) or asset.latest
        docs.append(build_doc(asset, revision, lambda form: form_type_of(store, domain, form)))
        by_asset[asset.id] = listing
    selected = _select(store, docs, params)
    page, token = paginate(selected, params)
    with_forms = "FORMS" in (params.get("additionalAttributes") or [])
    items = []
    for doc in page:
        listing = by_asset[doc.asset_id]
        forms = json.dumps({f.form_name: f.parsed for f in doc.forms}) if with_forms else None
        items.append(
            {
                "assetListing": compact(
                    {
                        "listingId": listing.id,
                        "listingRevision": listing.latest.listing_revision,
                        "name": doc.name,
                        "entityId": doc.asset_id,
                        "entityRevision": doc.revision,
                        "entityType": doc.type_name,
                        "description": doc.description,
                        "createdAt": listing.latest.at,
                        "listingCreatedBy": store.principal,
                        "listingUpdatedBy": store.principal,
                        "owningProjectId": doc.owning_project_id,
                        "additionalAttributes": {"forms": forms} if forms else None,
                    }
                )
            }
        )
    return compact({"items": items, "nextToken": token, "totalMatchCount": len(selected)})
