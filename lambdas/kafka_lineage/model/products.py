"""What a data product is to schema-sync: the product as configured and matched (`Desired`), and what the
last run wrote (`ProductRecord`, kept in SSM under `{MAPPING_PATH}/assets/products/`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# A placeholder item id for an asset a dry run would create (its id is not known before it exists).
NEW = "new:"


@dataclass(frozen=True)
class Desired:
    """A configured product and the topic assets whose topics match it now."""

    name: str
    description: str | None
    glossary_terms: tuple[str, ...]
    items: tuple[str, ...]  # asset ids, sorted (a dry run's new assets as NEW + schema ARN)

    @property
    def digest(self) -> str:
        """What DataZone holds of the product's content: a change of any of it is a revision."""
        body = json.dumps(
            [self.description, list(self.glossary_terms), list(self.items)], separators=(",", ":")
        )
        return hashlib.sha256(body.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class ProductRecord:
    """The product as the last run wrote it. Items are kept as a digest (a product of a thousand topics
    would not fit one 4 KB parameter); a drift finds a topic's products from the setting's patterns."""

    name: str
    product_id: str
    revision: str
    digest: str
    items: int
    listing_id: str = ""  # the product's listing, from the publish (ListSubscriptions asks by it)
    unpublished: bool = False  # created or revised, but a domain rule refused its publish
    held: int = 0  # no topic matches, and this many approved subscriptions hold its deletion

    def to_entry(self) -> dict[str, Any]:
        return {
            "i": self.product_id,
            "r": self.revision,
            "h": self.digest,
            "n": self.items,
            **({"l": self.listing_id} if self.listing_id else {}),
            **({"np": 1} if self.unpublished else {}),
            **({"hd": self.held} if self.held else {}),
        }

    @classmethod
    def from_entry(cls, name: str, entry: Mapping[str, Any]) -> ProductRecord:
        return cls(
            name=name,
            product_id=str(entry["i"]),
            revision=str(entry["r"]),
            digest=str(entry["h"]),
            items=int(entry["n"]),
            listing_id=str(entry.get("l", "")),
            unpublished=bool(entry.get("np", 0)),
            held=int(entry.get("hd", 0)),
        )


@dataclass(frozen=True)
class Written:
    """A product as DataZone answered a create or a revision."""

    product_id: str
    revision: str


class ProductGone(Exception):
    """The product the state names no longer exists in DataZone (deleted by hand): it is created again."""
