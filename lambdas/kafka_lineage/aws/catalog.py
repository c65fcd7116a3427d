"""DataZone catalog writer: the asset type, assets, their listings, and lookups by external identifier."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from kafka_lineage.aws.clients import RateLimiter

SEARCH_PAGE_SIZE = 50  # Search's maxResults maximum
# The Search filter attribute that selects assets by type. Undocumented in the API reference; this is the
# attribute the console and public samples filter on. A lookup that finds nothing through it falls back to
# scanning the project's assets (see find_by_external_id), so a wrong guess costs calls, not correctness.
TYPE_FILTER_ATTRIBUTE = "typeName"
# "Conflict with asset <id>": not a documented contract, so a message we can't parse falls back to Search.
_CONFLICT_ASSET = re.compile(r"asset\s+([a-zA-Z0-9_-]{1,36})\b")


@dataclass(frozen=True)
class FormSpec:
    type_name: str
    type_revision: str
    required: bool


@dataclass(frozen=True)
class AssetType:
    name: str
    revision: str
    forms: dict[str, FormSpec]  # form name -> pinned form type


@dataclass(frozen=True)
class FormInput:
    form_name: str
    content: str  # JSON text


@dataclass(frozen=True)
class AssetContent:
    name: str
    description: str
    forms: tuple[FormInput, ...]


@dataclass(frozen=True)
class CatalogAsset:
    asset_id: str
    external_identifier: str
    revision: str


class AssetConflict(Exception):
    """CreateAsset met an existing asset with the same external identifier."""

    def __init__(self, message: str, asset_id: str | None) -> None:
        super().__init__(message)
        self.asset_id = asset_id


class AssetGone(Exception):
    """The asset no longer exists."""


def error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


class Catalog:
    def __init__(
        self, datazone: Any, domain_id: str, project_id: str, limiter: RateLimiter | None = None
    ) -> None:
        self.datazone = datazone
        self.domain_id = domain_id
        self.project_id = project_id
        self.limiter = limiter

    def _call(self, operation: str, **kwargs: Any) -> dict[str, Any]:
        if self.limiter is not None:
            self.limiter.acquire()
        result: dict[str, Any] = getattr(self.datazone, operation)(domainIdentifier=self.domain_id, **kwargs)
        return result

    def asset_type(self, name: str) -> AssetType:
        answer = self._call("get_asset_type", identifier=name)
        forms = {
            form_name: FormSpec(
                type_name=form["typeName"],
                type_revision=form["typeRevision"],
                required=bool(form.get("required", False)),
            )
            for form_name, form in answer.get("formsOutput", {}).items()
        }
        return AssetType(name=answer["name"], revision=answer["revision"], forms=forms)

    @staticmethod
    def _forms(asset_type: AssetType, content: AssetContent) -> list[dict[str, Any]]:
        forms = []
        for form in content.forms:
            spec = asset_type.forms[form.form_name]
            forms.append(
                {
                    "formName": form.form_name,
                    "typeIdentifier": spec.type_name,
                    "typeRevision": spec.type_revision,
                    "content": form.content,
                }
            )
        return forms

    def create_asset(
        self, external_identifier: str, content: AssetContent, asset_type: AssetType, token: str
    ) -> CatalogAsset:
        try:
            answer = self._call(
                "create_asset",
                name=content.name,
                description=content.description,
                externalIdentifier=external_identifier,
                typeIdentifier=asset_type.name,
                typeRevision=asset_type.revision,
                owningProjectIdentifier=self.project_id,
                formsInput=self._forms(asset_type, content),
                clientToken=token,
            )
        except ClientError as error:
            if error_code(error) == "ConflictException":
                message = str(error.response.get("Error", {}).get("Message", ""))
                found = _CONFLICT_ASSET.search(message)
                raise AssetConflict(message, found.group(1) if found else None) from error
            raise
        return CatalogAsset(answer["id"], external_identifier, answer["revision"])

    def revise_asset(
        self, asset_id: str, content: AssetContent, asset_type: AssetType, token: str
    ) -> CatalogAsset:
        try:
            answer = self._call(
                "create_asset_revision",
                identifier=asset_id,
                name=content.name,
                description=content.description,
                typeRevision=asset_type.revision,
                formsInput=self._forms(asset_type, content),
                clientToken=token,
            )
        except ClientError as error:
            if error_code(error) == "ResourceNotFoundException":
                raise AssetGone(asset_id) from error
            raise
        return CatalogAsset(answer["id"], answer.get("externalIdentifier", ""), answer["revision"])

    def get_asset(self, asset_id: str) -> CatalogAsset | None:
        try:
            answer = self._call("get_asset", identifier=asset_id)
        except ClientError as error:
            if error_code(error) == "ResourceNotFoundException":
                return None
            raise
        return CatalogAsset(answer["id"], answer.get("externalIdentifier", ""), answer["revision"])

    def publish(self, asset_id: str, revision: str, token: str) -> None:
        """Publish (or refresh) the asset's listing so users outside the project can find it."""
        self._call(
            "create_listing_change_set",
            entityIdentifier=asset_id,
            entityType="ASSET",
            entityRevision=revision,
            action="PUBLISH",
            clientToken=token,
        )

    def unpublish(self, asset_id: str, token: str) -> None:
        """Withdraw the listing; an asset that is gone or was never published needs nothing."""
        try:
            self._call(
                "create_listing_change_set",
                entityIdentifier=asset_id,
                entityType="ASSET",
                action="UNPUBLISH",
                clientToken=token,
            )
        except ClientError as error:
            if error_code(error) not in ("ResourceNotFoundException", "ConflictException"):
                raise

    def delete_asset(self, asset_id: str) -> None:
        """Delete; an asset already gone counts as deleted (deletes are retried freely)."""
        try:
            self._call("delete_asset", identifier=asset_id)
        except ClientError as error:
            if error_code(error) != "ResourceNotFoundException":
                raise

    def assets_of_type(self, type_name: str) -> Iterator[CatalogAsset]:
        """Every asset of the type owned by the project (Search, 50 a page)."""
        request: dict[str, Any] = {
            "searchScope": "ASSET",
            "owningProjectIdentifier": self.project_id,
            "filters": {"filter": {"attribute": TYPE_FILTER_ATTRIBUTE, "value": type_name}},
            "maxResults": SEARCH_PAGE_SIZE,
        }
        yield from self._search(request, type_name)

    def find_by_external_id(self, external_identifier: str, type_name: str) -> CatalogAsset | None:
        """The asset with this external identifier: a text search first, then a scan of the type."""
        request: dict[str, Any] = {
            "searchScope": "ASSET",
            "owningProjectIdentifier": self.project_id,
            "searchText": external_identifier,
            "filters": {"filter": {"attribute": TYPE_FILTER_ATTRIBUTE, "value": type_name}},
            "maxResults": SEARCH_PAGE_SIZE,
        }
        for asset in self._search(request, type_name):
            if asset.external_identifier == external_identifier:
                return asset
        for asset in self.assets_of_type(type_name):
            if asset.external_identifier == external_identifier:
                return asset
        return None

    def _search(self, request: dict[str, Any], type_name: str) -> Iterator[CatalogAsset]:
        while True:
            page = self._call("search", **request)
            for item in page.get("items", []):
                asset = item.get("assetItem")
                if not asset or asset.get("typeIdentifier", type_name) not in (type_name, ""):
                    continue
                yield CatalogAsset(
                    asset["identifier"], asset.get("externalIdentifier", ""), asset.get("revision", "")
                )
            token = page.get("nextToken")
            if not token:
                return
            request = {**request, "nextToken": token}
