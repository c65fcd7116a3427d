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
    # An extra metadata form (one the asset type does not define, such as an `assetForms` setting's) names
    # its form type; the asset type's own forms take the type and revision the asset type pins.
    type_identifier: str | None = None
    type_revision: str | None = None


@dataclass(frozen=True)
class AssetContent:
    name: str
    description: str
    forms: tuple[FormInput, ...]
    glossary_terms: tuple[str, ...] = ()  # glossary term ids attached to the asset


@dataclass(frozen=True)
class CatalogAsset:
    asset_id: str
    external_identifier: str
    revision: str
    note: str = ""  # what the write could not do as asked (the run reports it as a warning)


@dataclass(frozen=True)
class Deletion:
    """What a DeleteAsset came to: done (`subscriptions` 0), or held while the asset's listing has that many
    approved subscriptions (nothing revokes or cancels them)."""

    subscriptions: int = 0

    @property
    def held(self) -> bool:
        return self.subscriptions > 0
