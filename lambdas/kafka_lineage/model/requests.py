"""The invocation payload's envelope, read the same way by every function: which shape it is, and its options.

A function declares the shapes it accepts (`Shape`: an EventBridge event by `source` and `detail-type`, or
a payload of its own by its keys) and its options (a pydantic model whose aliases are the option keys, such
as `dryRun`). `read_request` then:

- tells an EventBridge event (it has `source` or `detail-type`) from a payload of the function's own;
- refuses any top-level key that is neither part of that shape nor an option, naming it. An EventBridge
  event may carry exactly the envelope keys AWS documents (EventBridge User Guide, "Amazon EventBridge
  events" / events reference, "AWS service event metadata": `version`, `id`, `detail-type`, `source`,
  `account`, `time`, `region`, `resources`, `detail`, and `replay-name` on a replayed event), and the
  options beside them;
- reads the options strictly (`"dryRun": "true"` is refused naming `dryRun`: lax parsing would take
  `"false"` for False, and `"no"` too);
- refuses, naming it, an option the shape does not honour. An option left at its default (`false`) asks
  nothing, so it is accepted with every shape that knows it.

The shape's own content (an event's `detail`, a payload's `schemaArns`) is the function's to read. An
SQS event that wraps EventBridge events is a shape of the function's own with the key `Records`; each
record's body is then one more payload for `read_request`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from aws_lambda_powertools.utilities.parser.models import EventBridgeModel
from pydantic import BaseModel, ValidationError

from kafka_lineage.model.errors import describe

# AWS's documented envelope of every event EventBridge delivers; `replay-name` only on a replayed event.
ENVELOPE_KEYS = (
    "version",
    "id",
    "detail-type",
    "source",
    "account",
    "time",
    "region",
    "replay-name",
    "resources",
    "detail",
)
# The detail-type of an EventBridge scheduled rule's event (its source is `aws.events`; any source is taken).
SCHEDULED_EVENT = "Scheduled Event"

Options = TypeVar("Options", bound=BaseModel)


class InvalidRequest(ValueError):
    """The invocation payload is not one the function accepts; the message names what was unexpected."""


@dataclass(frozen=True)
class Shape:
    """One accepted payload shape. `detail_type` set: an EventBridge event (of `source`, any when None);
    otherwise a payload of the function's own with exactly the keys `keys` besides its options.
    `options`: the option keys this shape honours."""

    name: str
    options: frozenset[str] = frozenset()
    detail_type: str | None = None
    source: str | None = None
    keys: frozenset[str] = frozenset()

    @property
    def is_event(self) -> bool:
        return self.detail_type is not None

    def matches(self, envelope: EventBridgeModel) -> bool:
        return envelope.detail_type == self.detail_type and self.source in (None, envelope.source)


@dataclass(frozen=True)
class Request(Generic[Options]):
    """An accepted payload: its shape, the payload without its options, and the options read."""

    shape: Shape
    body: Mapping[str, Any]
    options: Options
    given: frozenset[str]  # the option keys set to something else than their default
    envelope: EventBridgeModel | None = None


def option_keys(options: type[BaseModel]) -> tuple[str, ...]:
    """The options' keys as a payload spells them (their aliases)."""
    return tuple(field.alias or name for name, field in options.model_fields.items())


def _names(keys: Sequence[str]) -> str:
    return ", ".join(repr(key) for key in keys)


def _unexpected(keys: Sequence[str], where: str, accepted: str, options: Sequence[str]) -> InvalidRequest:
    plural = "s" if len(keys) > 1 else ""
    return InvalidRequest(
        f"unexpected key{plural} {_names(keys)}{where} (accepted: {accepted}the options {', '.join(options)})"
    )


def _shape_of(
    event: dict[str, Any], shapes: Sequence[Shape], options: Sequence[str]
) -> tuple[Shape, EventBridgeModel | None]:
    body_keys = [key for key in event if key not in options]
    if "detail-type" in event or "source" in event:
        unknown = [key for key in body_keys if key not in ENVELOPE_KEYS]
        if unknown:
            envelope_keys = f"the envelope's {', '.join(ENVELOPE_KEYS)}; "
            raise _unexpected(unknown, " in an EventBridge event", envelope_keys, options)
        try:
            envelope = EventBridgeModel.model_validate({key: event[key] for key in body_keys})
        except ValidationError as error:
            raise InvalidRequest(
                f"malformed EventBridge event: {describe(error, first_only=True)}"
            ) from error
        for shape in shapes:
            if shape.is_event and shape.matches(envelope):
                return shape, envelope
        raise InvalidRequest(
            f"unexpected EventBridge event: source {envelope.source!r}, detail-type {envelope.detail_type!r}"
        )
    own = [shape for shape in shapes if not shape.is_event]
    known = sorted({key for shape in own for key in shape.keys})
    unknown = [key for key in body_keys if key not in known]
    if unknown:
        raise _unexpected(unknown, "", f"{', '.join(known)}; " if known else "", options)
    for shape in own:
        if shape.keys == frozenset(body_keys):
            return shape, None
    raise InvalidRequest(f"no accepted payload has the keys {_names(body_keys)} together")


def read_request(event: Any, shapes: Sequence[Shape], options: type[Options]) -> Request[Options]:
    """Recognise the payload's shape, read its options, refuse what the shape does not take (by name)."""
    if not isinstance(event, dict):
        raise InvalidRequest(f"expected a JSON object, got {type(event).__name__}")
    keys = option_keys(options)
    shape, envelope = _shape_of(event, shapes, keys)
    given_options = {key: event[key] for key in keys if key in event}
    try:
        read = options.model_validate(given_options)
    except ValidationError as error:
        raise InvalidRequest(describe(error, where="options")) from error
    fields = dict(zip(keys, options.model_fields.items(), strict=True))  # key -> (attribute, field)
    given = frozenset(
        key for key, (name, field) in fields.items() if key in event and getattr(read, name) != field.default
    )
    for key in keys:
        if key in given and key not in shape.options:
            why = fields[key][1].description
            honoured = ", ".join(key for key in keys if key in shape.options) or "none"
            raise InvalidRequest(
                f"{key}: not accepted with {shape.name}"
                + (f" ({why})" if why else "")
                + f"; the options it takes: {honoured}"
            )
    body = {key: value for key, value in event.items() if key not in keys}
    return Request(shape, body, read, given, envelope)
