"""DataZone catalog values: an asset type and its pinned forms, the content of an asset, an asset written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FormSpec:
    type_name: str
    type_revision: str
    required: bool


def _unknown_members(type_name: str, type_revision: str) -> frozenset[str] | None:
    return None


@dataclass(frozen=True)
class AssetType:
    name: str
    revision: str
    forms: dict[str, FormSpec]  # form name -> pinned form type
    # (form type name, revision) -> the member paths its model declares; None when unknown. Read lazily:
    # only runs that build asset content need it.
    members_of: Callable[[str, str], frozenset[str] | None] = field(
        default=_unknown_members, compare=False, repr=False
    )


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
    note: str = ""  # what the write could not do as asked (the run reports it as a warning)
