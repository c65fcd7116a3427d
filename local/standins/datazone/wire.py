"""Values as they cross the DataZone stand-in's API: request and response dicts, timestamps, stable texts."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

from local.standins.errors import validation

Params = dict[str, Any]
Response = dict[str, Any]


def canonical(value: Any) -> str:
    """A stable text of a request, for clientToken comparison and page-token binding."""

    def default(item: Any) -> Any:
        if isinstance(item, bytes | bytearray):
            return hashlib.sha256(bytes(item)).hexdigest()
        if isinstance(item, datetime):
            return item.isoformat()
        raise TypeError(type(item).__name__)

    return json.dumps(value, sort_keys=True, default=default, ensure_ascii=False)


def epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def as_datetime(value: Any, member: str) -> datetime:
    """A timestamp member: the server hands datetimes; tests may pass ISO text or epoch seconds."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise validation(f"{member}: {value!r} is not a timestamp") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise validation(f"{member}: {value!r} is not a timestamp")


def compact(value: dict[str, Any]) -> dict[str, Any]:
    """Drop absent optional members so the serializer leaves them out."""
    return {key: item for key, item in value.items() if item is not None}
