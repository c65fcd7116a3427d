"""DataZone catalog writer: the asset type, assets, their listings, and lookups by external identifier."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.catalog_search import SEARCH_PAGE_SIZE, ProjectAssets
from kafka_lineage.aws.form_members import declared_paths
from kafka_lineage.aws.pacing import Pacer
from kafka_lineage.model import clock as default_clock
from kafka_lineage.model.catalog import AssetContent, AssetType, CatalogAsset, Deletion, FormInput, FormSpec
from kafka_lineage.model.failures import (
    AccessDenied,
    AssetConflict,
    AssetGone,
    AwsError,
    Conflict,
    Invalid,
    ListingBusy,
    NotFound,
    PublishRefused,
)
from kafka_lineage.observability import logger

if TYPE_CHECKING:
    from mypy_boto3_datazone import DataZoneClient
    from mypy_boto3_datazone.type_defs import FormInputTypeDef

MANAGED_FORM_PREFIX = "amazon.datazone."
# Listing changes are asynchronous (CreateListingChangeSet answers CREATING): how long to wait for one to
# take effect before giving up on this run (the next run retries), and the first pause between looks.
LISTING_WAIT_SECONDS = 60.0
LISTING_FIRST_PAUSE_SECONDS = 0.25
LISTING_MAX_PAUSE_SECONDS = 5.0
# "Conflict with asset <id>": not a documented contract, so a message we can't parse falls back to Search,
# and so does an id that does not lead to the asset with our external identifier.
_CONFLICT_ASSET = re.compile(r"\bConflict with asset ([a-zA-Z0-9_-]{1,36})\b")
# A publish refused by a domain rule: the stand-in's message names it `rule '<name>'` (a reading: AWS
# documents no message). Without such a name the refusing rules are looked up (GetProject, then ListRules).
_RULE_NAMED = re.compile(r"\brule '([\w -]{1,256})'")
PUBLISH_ACTION: Final = "CREATE_LISTING_CHANGE_SET"


class _ListingWait:
    """A bounded wait for a listing change: pauses that double up to LISTING_MAX_PAUSE_SECONDS, until
    the next pause would end past `seconds` from the start."""

    def __init__(self, clock: Callable[[], float], sleep: Callable[[float], None], seconds: float) -> None:
        self._clock = clock
        self._sleep = sleep
        self._deadline = clock() + seconds
        self._pause = LISTING_FIRST_PAUSE_SECONDS

    def expired(self) -> bool:
        return self._clock() + self._pause > self._deadline

    def pause(self) -> None:
        self._sleep(self._pause)
        self._pause = min(self._pause * 2, LISTING_MAX_PAUSE_SECONDS)


class Catalog:
    def __init__(
        self,
        datazone: DataZoneClient,
        domain_id: str,
        project_id: str,
        limiter: Pacer | None = None,
        *,
        listing_wait_seconds: float | None = None,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.datazone = instrument(datazone, limiter)
        self.domain_id = domain_id
        self.project_id = project_id
        self.limiter = limiter
        self.listing_wait_seconds = (
            LISTING_WAIT_SECONDS if listing_wait_seconds is None else listing_wait_seconds
        )
        self._sleep = sleep or default_clock.sleep
        self._clock = clock or default_clock.monotonic
        self.search = ProjectAssets(self.datazone, domain_id, project_id)
        self._members: dict[tuple[str, str], frozenset[str] | None] = {}
        self._members_lock = threading.Lock()

    def asset_type(self, name: str, revision: str | None = None) -> AssetType:
        """The asset type's latest revision, or the one named."""
        answer = self.datazone.get_asset_type(
            domainIdentifier=self.domain_id,
            identifier=name,
            **({"revision": revision} if revision is not None else {}),
        )
        forms = {
            form_name: FormSpec(
                type_name=form["typeName"],
                type_revision=form["typeRevision"],
                required=bool(form.get("required", False)),
            )
            for form_name, form in answer.get("formsOutput", {}).items()
        }
        return AssetType(
            name=answer["name"], revision=answer["revision"], forms=forms, members_of=self.form_members
        )

    def form_members(self, type_name: str, type_revision: str) -> frozenset[str] | None:
        """The member paths a form type's model declares (GetFormType, once per revision); None when the
        model cannot be read. Asked for DataZone's managed RelationalTableFormType, and for our drift form
        type only when a summary has members its later revision added (the pinned revision may predate
        them)."""
        key = (type_name, type_revision)
        # One read per revision, even when parallel workers ask at once: they wait for the first.
        with self._members_lock:
            if key not in self._members:
                self._members[key] = self._read_members(type_name, type_revision)
            return self._members[key]

    def _read_members(self, type_name: str, type_revision: str) -> frozenset[str] | None:
        try:
            answer = self.datazone.get_form_type(
                domainIdentifier=self.domain_id, formTypeIdentifier=type_name, revision=type_revision
            )
        except (AccessDenied, NotFound) as error:
            # Anything passing (throttling, a server error) is raised: the schema fails, the next run retries.
            logger.warning(
                "form type model unreadable; its undocumented members are not written",
                extra={"formType": type_name, "revision": type_revision, "error": str(error)},
            )
            return None
        text = (answer.get("model") or {}).get("smithy")
        return declared_paths(text, type_name.removeprefix(MANAGED_FORM_PREFIX)) if text else None

    @staticmethod
    def _forms(asset_type: AssetType, content: AssetContent) -> list[FormInputTypeDef]:
        """The asset type's forms at the revisions it pins; an extra form (`assetForms`) as its own type."""
        forms: list[FormInputTypeDef] = []
        for form in content.forms:
            spec = asset_type.forms.get(form.form_name)
            entry: FormInputTypeDef = {"formName": form.form_name, "content": form.content}
            if spec is not None:
                entry["typeIdentifier"] = spec.type_name
                entry["typeRevision"] = spec.type_revision
            elif form.type_identifier:
                entry["typeIdentifier"] = form.type_identifier
                if form.type_revision:
                    entry["typeRevision"] = form.type_revision
            forms.append(entry)
        return forms

    @staticmethod
    def _terms(content: AssetContent) -> dict[str, Any]:
        return {"glossaryTerms": list(content.glossary_terms)} if content.glossary_terms else {}

    def _content_input(self, content: AssetContent, asset_type: AssetType, token: str) -> dict[str, Any]:
        """What CreateAsset and CreateAssetRevision both take: the content, at a revision of the type."""
        return {
            "domainIdentifier": self.domain_id,
            "name": content.name,
            "description": content.description,
            "typeRevision": asset_type.revision,
            "formsInput": self._forms(asset_type, content),
            "clientToken": token,
            **self._terms(content),
        }

    def create_asset(
        self, external_identifier: str, content: AssetContent, asset_type: AssetType, token: str
    ) -> CatalogAsset:
        try:
            answer = self.datazone.create_asset(
                externalIdentifier=external_identifier,
                typeIdentifier=asset_type.name,
                owningProjectIdentifier=self.project_id,
                **self._content_input(content, asset_type, token),
            )
        except Conflict as error:
            found = _CONFLICT_ASSET.search(error.message)
            named = self.get_asset(found.group(1)) if found else None
            asset_id = named.asset_id if named and named.external_identifier == external_identifier else None
            raise AssetConflict(error.message, asset_id) from error
        return CatalogAsset(answer["id"], external_identifier, answer["revision"])

    def revise_asset(
        self, asset_id: str, content: AssetContent, asset_type: AssetType, token: str
    ) -> CatalogAsset:
        """A new revision with this content, at the asset type's revision `asset_type` (the latest: an
        asset made under an older revision moves to it, and so gains the forms only the newer one has).

        Whether DataZone lets a revision move an asset to another type revision is undocumented
        (local/standins/readings.py, revision_changes_type_revision). When it refuses, the asset is revised
        at the type revision it has, with the forms that revision has (the others are left out, never
        written wrongly), and the answer's `note` says what is missing.
        """
        try:
            return self._revise(asset_id, content, asset_type, token)
        except Invalid as error:
            current = self._type_revision_of(asset_id)
            if current is None or current == asset_type.revision:
                raise  # refused for another reason: say so
            logger.warning(
                "DataZone refused moving the asset to the latest type revision; revising it at its own",
                extra={"assetId": asset_id, "typeRevision": current, "wanted": asset_type.revision},
            )
            held = self.asset_type(asset_type.name, current)
            kept = tuple(
                form for form in content.forms if form.form_name in held.forms or form.type_identifier
            )
            left_out = sorted(form.form_name for form in content.forms if form not in kept)
            revised = self._revise(
                asset_id,
                AssetContent(content.name, content.description, kept, content.glossary_terms),
                held,
                f"{token[:100]}-at-{current}"[:128],
            )
            note = (
                f"asset stays at {asset_type.name} revision {current}: DataZone refused revision "
                f"{asset_type.revision}"
                + (f"; not shown: {', '.join(left_out)}" if left_out else "")
                + f" ({error})"
            )
            return CatalogAsset(revised.asset_id, revised.external_identifier, revised.revision, note)

    def _revise(
        self, asset_id: str, content: AssetContent, asset_type: AssetType, token: str
    ) -> CatalogAsset:
        try:
            answer = self.datazone.create_asset_revision(
                identifier=asset_id, **self._content_input(content, asset_type, token)
            )
        except NotFound as error:
            raise AssetGone(asset_id) from error
        return CatalogAsset(answer["id"], answer.get("externalIdentifier", ""), answer["revision"])

    def _type_revision_of(self, asset_id: str) -> str | None:
        try:
            answer = self.datazone.get_asset(domainIdentifier=self.domain_id, identifier=asset_id)
        except NotFound as error:
            raise AssetGone(asset_id) from error
        revision = answer.get("typeRevision")
        return str(revision) if revision else None

    def get_asset(self, asset_id: str) -> CatalogAsset | None:
        try:
            answer = self.datazone.get_asset(domainIdentifier=self.domain_id, identifier=asset_id)
        except NotFound:
            return None
        return CatalogAsset(answer["id"], answer.get("externalIdentifier", ""), answer["revision"])

    def publish(self, asset_id: str, revision: str, token: str) -> None:
        """Publish (or refresh) the asset's listing so users outside the project can find it.

        Listing changes are asynchronous. A change refused while an earlier one of the same listing is
        still in progress (a revision published right after the last) is retried once that one took
        effect; the accepted change itself is not waited for (CREATING turns ACTIVE on its own). A publish
        that DataZone refuses as invalid is a domain rule's refusal (the asset's revision was just written
        and accepted): PublishRefused, naming the rules.
        """
        wait = _ListingWait(self._clock, self._sleep, self.listing_wait_seconds)
        while True:
            try:
                self.datazone.create_listing_change_set(
                    domainIdentifier=self.domain_id,
                    entityIdentifier=asset_id,
                    entityType="ASSET",
                    entityRevision=revision,
                    action="PUBLISH",
                    clientToken=token,
                )
                return
            except Invalid as error:
                raise PublishRefused(error.message, self.refusing_rules(error.message)) from error
            except Conflict as error:
                if wait.expired():
                    raise ListingBusy(
                        f"asset {asset_id}: revision {revision} not published, its listing kept a change in "
                        f"progress for {self.listing_wait_seconds:.0f} s: {error}"
                    ) from error
            wait.pause()

    def refusing_rules(self, message: str) -> tuple[str, ...]:
        """The rules a refusal names; when it names none, the publishing rules that cover the project's
        assets of the type (GetProject for its domain unit, then ListRules). Unreadable: none."""
        named = tuple(dict.fromkeys(_RULE_NAMED.findall(message)))
        if named:
            return named
        try:
            project = self.datazone.get_project(domainIdentifier=self.domain_id, identifier=self.project_id)
            unit = project.get("domainUnitId")
            if not unit:
                return ()
            names: list[str] = []
            pages = self.datazone.get_paginator("list_rules").paginate(
                domainIdentifier=self.domain_id,
                targetType="DOMAIN_UNIT",
                targetIdentifier=unit,
                action=PUBLISH_ACTION,
                projectIds=[self.project_id],
                includeCascaded=True,
            )
            for page in pages:
                names.extend(str(rule["name"]) for rule in page.get("items", []) if rule.get("name"))
            return tuple(dict.fromkeys(names))
        except AwsError as error:
            logger.warning("publishing rules unreadable", extra={"error": str(error)})
            return ()

    def unpublish(self, asset_id: str, token: str) -> None:
        """Withdraw the listing and wait until it is withdrawn; an asset that is gone or was never
        published needs nothing (whatever DataZone answers for one: local/standins/readings.py,
        unpublish_unlisted).

        A change refused while another of the listing is in progress is retried; the unpublish, being
        asynchronous too, is waited for (GetListing). Both waits are bounded: past them ListingBusy, and the
        next run retries. Only a DeleteAsset that DataZone refuses for a published listing needs this.
        """
        wait = _ListingWait(self._clock, self._sleep, self.listing_wait_seconds)
        while True:
            try:
                answer = self.datazone.create_listing_change_set(
                    domainIdentifier=self.domain_id,
                    entityIdentifier=asset_id,
                    entityType="ASSET",
                    action="UNPUBLISH",
                    clientToken=token,
                )
                break
            except NotFound:
                return
            except (Conflict, Invalid) as error:
                listing = self._listing_of(asset_id)
                if listing is None or listing[1] == "INACTIVE":
                    return  # nothing published: the refusal was about that
                if isinstance(error, Invalid) or wait.expired():
                    raise ListingBusy(
                        f"asset {asset_id}: listing {listing[0]} kept a change in progress for "
                        f"{self.listing_wait_seconds:.0f} s; not unpublished yet: {error}"
                    ) from error
            wait.pause()
        listing_id, status = str(answer["listingId"]), str(answer.get("status", ""))
        looked = False  # a wait spent before the change was accepted still looks at the listing once
        while status not in ("INACTIVE", ""):
            if not wait.expired():
                wait.pause()
            elif looked:
                raise ListingBusy(
                    f"asset {asset_id}: listing {listing_id} still {status} "
                    f"{self.listing_wait_seconds:.0f} s after it was unpublished"
                )
            status = self._listing_status(listing_id)
            looked = True

    def delete_asset(self, asset_id: str, unpublish_token: str = "", subscribed: bool = False) -> Deletion:
        """Delete the asset, and with it its listing (DataZone deletes both: "Delete an Amazon DataZone
        asset"): one DeleteAsset. An asset already gone counts as deleted (deletes are retried freely).

        A delete refused while the listing has approved subscriptions is held (Deletion.held): the
        subscriptions are never revoked or cancelled. `subscribed` (the asset was held before) asks
        ListSubscriptions first, so a still-held asset costs no refused delete. A delete refused only
        because the listing is still published (a reading: local/standins/readings.py,
        delete_requires_unpublish) unpublishes, waits, and deletes again.
        """
        if subscribed:
            listing = self._listing_of(asset_id)
            count = self.approved_subscriptions(listing[0]) if listing else 0
            if count:
                return Deletion(count)
        try:
            self.datazone.delete_asset(domainIdentifier=self.domain_id, identifier=asset_id)
            return Deletion()
        except NotFound:
            return Deletion()
        except (Conflict, Invalid) as error:
            listing = self._listing_of(asset_id)
            if listing is None:
                raise  # refused for another reason (asset filters, data products): say so
            count = self.approved_subscriptions(listing[0])
            if count:
                return Deletion(count)
            if listing[1] == "INACTIVE":
                raise
            logger.info(
                "DeleteAsset refused a published asset; unpublishing it first",
                extra={"assetId": asset_id, "error": str(error)},
            )
        self.unpublish(asset_id, unpublish_token or f"unpublish-{asset_id}")
        with contextlib.suppress(NotFound):
            self.datazone.delete_asset(domainIdentifier=self.domain_id, identifier=asset_id)
        return Deletion()

    def approved_subscriptions(self, listing_id: str) -> int:
        """How many APPROVED subscriptions the listing has (ListSubscriptions, by listing and status)."""
        return len(self._approved(listing_id))

    def approved_subscribers(self, asset_id: str) -> list[tuple[str, str]]:
        """(project id, subscription id) of each APPROVED subscription to the asset's listing (GetAsset for
        the listing, then ListSubscriptions); none when the asset has no listing. A subscription by a user,
        a group or an IAM principal names no project: its project id is "" (DataZone's subscriptions are
        by project; the others are read as they come)."""
        listing = self._listing_of(asset_id)
        if listing is None:
            return []
        return listing_subscribers(self.datazone, self.domain_id, listing[0])

    def _approved(self, listing_id: str) -> list[dict[str, Any]]:
        return approved_subscriptions(self.datazone, self.domain_id, listing_id)

    def asset_content(self, asset_id: str) -> AssetContent:
        """The asset's latest content as DataZone holds it (name, description, forms, glossary terms)."""
        try:
            answer = self.datazone.get_asset(domainIdentifier=self.domain_id, identifier=asset_id)
        except NotFound as error:
            raise AssetGone(asset_id) from error
        forms = tuple(
            FormInput(
                form["formName"],
                form.get("content") or "{}",
                type_identifier=form.get("typeName"),
                type_revision=form.get("typeRevision"),
            )
            for form in answer.get("formsOutput", [])
        )
        return AssetContent(
            answer.get("name", ""),
            answer.get("description", ""),
            forms,
            tuple(answer.get("glossaryTerms", [])),
        )

    def _listing_of(self, asset_id: str) -> tuple[str, str] | None:
        """(listing id, status) of the asset's listing as GetAsset reports it; None when it has none."""
        try:
            answer = self.datazone.get_asset(domainIdentifier=self.domain_id, identifier=asset_id)
        except NotFound:
            return None
        listing = answer.get("listing")
        if not listing:
            return None
        return str(listing["listingId"]), str(listing.get("listingStatus", ""))

    def _listing_status(self, listing_id: str) -> str:
        try:
            answer = self.datazone.get_listing(domainIdentifier=self.domain_id, identifier=listing_id)
        except NotFound:
            return "INACTIVE"  # gone is withdrawn
        return str(answer.get("status", ""))

    def assets_of_type(self, type_name: str) -> Iterator[CatalogAsset]:
        """Every asset of the type owned by the project (aws/catalog_search.py)."""
        return self.search.assets_of_type(type_name)

    def find_by_external_id(self, external_identifier: str, type_name: str) -> CatalogAsset | None:
        """The asset with this external identifier (aws/catalog_search.py)."""
        return self.search.find_by_external_id(external_identifier, type_name)


def approved_subscriptions(datazone: Any, domain_id: str, listing_id: str) -> list[dict[str, Any]]:
    """The APPROVED subscriptions to a listing, an asset's or a data product's (ListSubscriptions, by listing
    and status)."""
    pages = datazone.get_paginator("list_subscriptions").paginate(
        domainIdentifier=domain_id,
        subscribedListingId=listing_id,
        status="APPROVED",
        PaginationConfig={"PageSize": SEARCH_PAGE_SIZE},
    )
    return [dict(item) for page in pages for item in page.get("items", [])]


def listing_subscribers(datazone: Any, domain_id: str, listing_id: str) -> list[tuple[str, str]]:
    """(project id, subscription id) of each APPROVED subscription to a listing. A subscription by a user, a
    group or an IAM principal names no project: its project id is "" (DataZone's subscriptions are by
    project; the others are read as they come)."""
    found = []
    for item in approved_subscriptions(datazone, domain_id, listing_id):
        project = (item.get("subscribedPrincipal") or {}).get("project") or {}
        found.append((str(project.get("id", "")), str(item.get("id", ""))))
    return found
