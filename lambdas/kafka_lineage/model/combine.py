"""One rule for a value made of parts (what each account's reader answered, two chunks' plans): the parts
combined field by field."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence
from functools import reduce
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Whole = TypeVar("Whole", bound="DataclassInstance")


def combined(kind: type[Whole], parts: Sequence[Whole]) -> Whole:
    """One `kind` of `parts`, field by field: tuples end to end and counts added, in the parts' order; a flag
    holds only when it holds in every part. No parts: `kind()`, its defaults (nothing read, nothing failed).
    A field of any other type is a mistake in `kind`, refused rather than combined by guess."""
    if not parts:
        return kind()
    values: dict[str, object] = {}
    for field in dataclasses.fields(kind):
        each = [getattr(part, field.name) for part in parts]
        if all(isinstance(value, bool) for value in each):
            values[field.name] = all(each)
        elif all(isinstance(value, tuple) for value in each) or all(type(value) is int for value in each):
            values[field.name] = reduce(operator.add, each)
        else:
            raise TypeError(f"{kind.__name__}.{field.name}: only tuples, counts and flags combine")
    return kind(**values)
