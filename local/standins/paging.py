"""Page tokens on moto's paginator (`moto.utilities.paginator.Paginator`): a token is botocore's encoding of
where the next page starts and a checksum of the request it came from, so a token used with another query
is refused. The services' own errors stand in for moto's InvalidToken. moto's checksum is Python's salted
`hash()`: a token holds only in the process that issued it, as does the stand-ins' state.

`page`: items are numbered by position, so a page resumes at an offset as the stand-ins always did (moto's
`unique_attribute` names the next page's first item; the stand-ins' listings have no one attribute for it).
A listing that shrank below the token's offset between pages refuses the token (moto's "Resource not
found"), where the stand-ins used to answer an empty last page: AWS documents neither, and the refusal is
the reading a caller must be ready for.

`page_after`: where a listing must survive removals between pages (Glue schemas and schema versions, MSK
channels, MSK Connect connectors), the token names the last item served and the next page starts after its
sort key. moto's paginator cannot: it resumes *at* the next page's first item and refuses the token once
that item is gone. That token is still botocore's encoding (as moto's), bound to the query by a digest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from botocore.paginate import TokenDecoder, TokenEncoder
from moto.core.exceptions import InvalidToken
from moto.utilities.paginator import Paginator

from local.standins.errors import ServiceError

T = TypeVar("T")


class _Numbered(NamedTuple):
    position: int
    item: Any


def page(
    items: Sequence[T],
    size: int,
    token: str | None,
    query: Mapping[str, Any],
    invalid: Callable[[str], ServiceError],
) -> tuple[list[T], str | None]:
    """One page of `size` items from `token` (None: the first), and the token of the next page (None: the
    last). `query` is the request less its paging members; `invalid` builds the service's refusal."""
    try:
        paginator = Paginator(
            max_results=size,
            starting_token=token or None,
            unique_attribute="position",
            param_values_to_check=dict(query),
        )
        numbered, next_token = paginator.paginate([_Numbered(i, item) for i, item in enumerate(items)])
    except InvalidToken as error:
        raise invalid("The next token is not valid for this request") from error
    return [entry.item for entry in numbered], next_token


def page_after(
    items: Sequence[T],
    size: int,
    token: str | None,
    query: Mapping[str, Any],
    key: Callable[[T], Any],
    invalid: Callable[[str], ServiceError],
) -> tuple[list[T], str | None]:
    """One page of `items` (in `key` order) after the item `token` names; the next page's token (None: the
    last). `key` must give a JSON value (a number, a string, a list of them)."""
    digest = hashlib.sha256(json.dumps(query, sort_keys=True, default=str).encode()).hexdigest()[:16]
    if token:
        try:
            decoded = TokenDecoder().decode(token)
            if decoded["query"] != digest:
                raise ValueError("a token of another query")
            after = _comparable(decoded["after"])
        except (ValueError, KeyError, TypeError) as error:
            raise invalid("The next token is not valid for this request") from error
        items = [item for item in items if _comparable(key(item)) > after]
    chosen = list(items[:size])
    if len(items) <= size:
        return chosen, None
    return chosen, TokenEncoder().encode({"query": digest, "after": key(chosen[-1])})


def _comparable(key: Any) -> Any:
    return tuple(key) if isinstance(key, list) else key
