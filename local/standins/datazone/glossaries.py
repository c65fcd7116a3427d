"""Glossaries and glossary terms: CreateGlossary, CreateGlossaryTerm, and the check of the `glossaryTerms`
an asset carries (CreateAsset, CreateAssetRevision). Only what assets and rules need of them."""

from __future__ import annotations

from local.standins.datazone.records import Glossary, GlossaryTerm
from local.standins.datazone.state import Domain, Store
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import conflict, not_found, validation


def create_glossary(store: Store, domain: Domain, params: Params) -> Response:
    def produce() -> Response:
        project = store.project(domain, params["owningProjectIdentifier"], not_found)
        if any(g.name == params["name"] for g in domain.glossaries.values()):
            raise conflict(f"Glossary {params['name']} already exists in domain {domain.id}")
        glossary = Glossary(
            store.new_id(),
            params["name"],
            project,
            params.get("description"),
            params.get("status") or "ENABLED",
        )
        domain.glossaries[glossary.id] = glossary
        return compact(
            {
                "domainId": domain.id,
                "id": glossary.id,
                "name": glossary.name,
                "owningProjectId": glossary.owning_project_id,
                "description": glossary.description,
                "status": glossary.status,
            }
        )

    return store.idempotent(domain, "CreateGlossary", params, produce)


def create_glossary_term(store: Store, domain: Domain, params: Params) -> Response:
    def produce() -> Response:
        glossary = domain.glossaries.get(params["glossaryIdentifier"])
        if glossary is None:
            raise not_found(f"Glossary {params['glossaryIdentifier']} not found")
        if glossary.status != "ENABLED":
            raise validation(f"Glossary {glossary.id} is disabled: no term can be added to it")
        siblings = [t for t in domain.glossary_terms.values() if t.glossary_id == glossary.id]
        if any(t.name == params["name"] for t in siblings):
            raise conflict(f"Glossary term {params['name']} already exists in glossary {glossary.id}")
        term = GlossaryTerm(
            store.new_id(),
            glossary.id,
            params["name"],
            params.get("status") or "ENABLED",
            params.get("shortDescription"),
        )
        domain.glossary_terms[term.id] = term
        return compact(
            {
                "id": term.id,
                "domainId": domain.id,
                "glossaryId": term.glossary_id,
                "name": term.name,
                "status": term.status,
                "shortDescription": term.short_description,
            }
        )

    return store.idempotent(domain, "CreateGlossaryTerm", params, produce)


def check_asset_terms(domain: Domain, terms: list[str] | None) -> None:
    """An asset's glossary terms must exist and be enabled (in an enabled glossary)."""
    for term_id in terms or []:
        term = domain.glossary_terms.get(term_id)
        if term is None:
            raise not_found(f"Glossary term {term_id} not found")
        glossary = domain.glossaries.get(term.glossary_id)
        if term.status != "ENABLED" or glossary is None or glossary.status != "ENABLED":
            raise validation(f"Glossary term {term_id} is disabled and cannot be attached to an asset")
    duplicates = sorted({t for t in terms or [] if (terms or []).count(t) > 1})
    if duplicates:
        raise validation(f"Glossary term {duplicates[0]} is given more than once")
