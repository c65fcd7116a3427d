"""The project's assets of a type, found with DataZone's Search: by type, and by external identifier."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kafka_lineage.model.catalog import CatalogAsset
from kafka_lineage.model.failures import Invalid
from kafka_lineage.observability import logger

if TYPE_CHECKING:
    from mypy_boto3_datazone import DataZoneClient

SEARCH_PAGE_SIZE = 50  # Search's maxResults maximum
SEARCH_TEXT_LIMIT = 512  # Search's searchText maximum (SearchText shape)
# The Search filter attribute that selects assets by type. Undocumented in the API reference; this is the
# attribute the console and public samples filter on. Nothing depends on it: results are checked against
# AssetItem.typeIdentifier, and a filtered search that finds nothing or is refused falls back to searching
# the project's assets without it (see assets_of_type).
TYPE_FILTER_ATTRIBUTE = "typeName"


class ProjectAssets:
    """Searches of one project's assets (the client is the catalog's, instrumented by the call layer)."""

    def __init__(self, datazone: DataZoneClient, domain_id: str, project_id: str) -> None:
        self.datazone = datazone
        self.domain_id = domain_id
        self.project_id = project_id
        self._type_filter_refused = False

    def assets_of_type(self, type_name: str) -> Iterator[CatalogAsset]:
        """Every asset of the type owned by the project (Search, 50 a page).

        Filtered by type first (an undocumented attribute). When that finds nothing or is refused, the
        project's assets are searched without it: the results are checked client-side either way.
        """
        seen: set[str] = set()
        if not self._type_filter_refused:
            try:
                for asset in self._search(self._request(type_filter=type_name), type_name):
                    seen.add(asset.asset_id)
                    yield asset
            except Invalid:
                logger.info("Search refused the type filter; searching the project's assets instead")
                self._type_filter_refused = True
            if seen:
                return
        for asset in self._search(self._request(), type_name):
            if asset.asset_id not in seen:
                yield asset

    def find_by_external_id(self, external_identifier: str, type_name: str) -> CatalogAsset | None:
        """The asset with this external identifier: a text search first (when the identifier fits
        searchText's 512 characters), then every asset of the type."""
        if len(external_identifier) <= SEARCH_TEXT_LIMIT:
            for asset in self._search(self._request(text=external_identifier), type_name):
                if asset.external_identifier == external_identifier:
                    return asset
        for asset in self.assets_of_type(type_name):
            if asset.external_identifier == external_identifier:
                return asset
        return None

    def _request(self, type_filter: str | None = None, text: str | None = None) -> dict[str, Any]:
        request: dict[str, Any] = {
            "domainIdentifier": self.domain_id,
            "searchScope": "ASSET",
            "owningProjectIdentifier": self.project_id,
            "PaginationConfig": {"PageSize": SEARCH_PAGE_SIZE},
        }
        if type_filter is not None:
            request["filters"] = {"filter": {"attribute": TYPE_FILTER_ATTRIBUTE, "value": type_filter}}
        if text is not None:
            request["searchText"] = text[:SEARCH_TEXT_LIMIT]
        return request

    def _search(self, request: dict[str, Any], type_name: str) -> Iterator[CatalogAsset]:
        """Search's asset items of this type owned by the project (typeIdentifier and owningProjectId are
        required members of AssetItem), page by page (lazily: a caller that found its asset stops)."""
        for page in self.datazone.get_paginator("search").paginate(**request):
            for item in page.get("items", []):
                asset = item.get("assetItem")
                if (
                    not asset
                    or asset.get("typeIdentifier") != type_name
                    or asset.get("owningProjectId") != self.project_id
                ):
                    continue
                yield CatalogAsset(
                    asset["identifier"], asset.get("externalIdentifier", ""), asset.get("revision", "")
                )
