"""The `dataProducts` setting: DataZone data products that group topic assets (docs/concepts.md, "Data
products"). schema-sync keeps one product per entry (kafka_lineage.sync.products)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from kafka_lineage.model.asset_forms import GlossaryTerms

from .sources import regular_expressions

# botocore datazone DataProductName (1-64), DataProductDescription (1-4,096).
PRODUCT_NAME_MAX = 64
PRODUCT_DESCRIPTION_MAX = 4096


class DataProduct(BaseModel):
    """One `dataProducts` entry: a product whose items are the topic assets whose topics match."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True)

    name: Annotated[str, Field(min_length=1, max_length=PRODUCT_NAME_MAX)] = Field(
        description="The product's name in DataZone (1-64 characters), unique among `dataProducts`: the "
        "product is found again by it."
    )
    description: Annotated[str, Field(min_length=1, max_length=PRODUCT_DESCRIPTION_MAX)] | None = Field(
        default=None, description="The product's description (at most 4,096 characters)."
    )
    include: tuple[str, ...] = Field(
        description="Regular expressions searched in the topic name (not anchored, as in `sources`); a "
        "topic asset is an item of the product when it matches one of them. At least one."
    )
    exclude: tuple[str, ...] = Field(
        default=(), description="Regular expressions of topics never in the product, even when included."
    )
    glossary_terms: GlossaryTerms = Field(
        default=(),
        description="Glossary term ids attached to the product (at most 20), for domains whose rules "
        "require terms before publishing.",
    )

    @field_validator("include", "exclude")
    @classmethod
    def _compiles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return regular_expressions(value)

    @field_validator("include")
    @classmethod
    def _some(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("at least one regular expression is required")
        return value

    def holds(self, topic: str) -> bool:
        """True when the topic matches one `include` and no `exclude`."""
        included = any(re.search(pattern, topic) for pattern in self.include)
        return included and not any(re.search(pattern, topic) for pattern in self.exclude)


def _unique(value: tuple[DataProduct, ...]) -> tuple[DataProduct, ...]:
    names = [product.name for product in value]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"name listed more than once: {duplicates}")
    return value


DataProducts = Annotated[tuple[DataProduct, ...], AfterValidator(_unique)]
