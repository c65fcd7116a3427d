"""Every payload shape of both functions: each option is honoured or refused by name, and any other key is
refused by name, EventBridge events included (docs/invocation.md, "Options and shapes")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from kafka_lineage.lineage.requests import parse_emit_event
from kafka_lineage.model.requests import ENVELOPE_KEYS, InvalidRequest, Shape, read_request
from kafka_lineage.sync.requests import parse_sync_event
from tests.fixtures import load_event

Parse = Callable[[Any], Any]
ARN = "arn:aws:glue:eu-west-1:111122223333:schema/cdc.prod-$1/__debezium-heartbeat.dbserver1"

# Every shape each function accepts, as a fixture or a payload of its own.
SYNC_SHAPES = {
    "empty": {},
    "schemaArns": {"schemaArns": [ARN]},
    "schedule": load_event("lineage_scheduled"),
    "cloudtrail": load_event("glue_register_schema_version"),
    "drift": load_event("schema_drift_detected"),
}
LINEAGE_SHAPES = {
    "empty": {},
    "topics": {"topics": [{"registryName": "cdc.prod-$1", "topic": "__debezium-heartbeat.x"}]},
    "schedule": load_event("lineage_scheduled"),
    "topic-asset-changed": load_event("topic_asset_changed"),
}
# Which option each shape honours (the docs' table); the others are refused, naming them.
SYNC_HONOURS = {
    "empty": {"dryRun", "verify", "allowMassDelete"},
    "schemaArns": {"dryRun", "allowMassDelete"},
    "schedule": {"dryRun", "verify", "allowMassDelete"},
    "cloudtrail": {"dryRun", "allowMassDelete"},
    "drift": {"dryRun", "allowMassDelete"},
}
LINEAGE_HONOURS = {
    "empty": {"dryRun", "force", "allowMassDelete"},
    "topics": {"dryRun", "force"},
    "schedule": {"dryRun", "force", "allowMassDelete"},
    "topic-asset-changed": {"dryRun", "force"},
}
SYNC_FIELDS = {"dryRun": "dry_run", "verify": "verify", "allowMassDelete": "allow_mass_delete"}
LINEAGE_FIELDS = {"dryRun": "dry_run", "force": "force", "allowMassDelete": "allow_mass_delete"}


def _cases(shapes: dict[str, Any], honours: dict[str, set[str]], options: dict[str, str]) -> list[Any]:
    return [
        pytest.param(shapes[shape], key, options[key], key in honours[shape], id=f"{shape}-{key}")
        for shape in shapes
        for key in options
    ]


@pytest.mark.parametrize(
    ("event", "key", "field", "honoured"), _cases(SYNC_SHAPES, SYNC_HONOURS, SYNC_FIELDS)
)
def test_given_a_sync_option_on_any_shape_when_parsed_then_honoured_or_refused_by_name(
    event: dict[str, Any], key: str, field: str, honoured: bool
) -> None:
    # Given the shape with the option set
    payload = {**event, key: True}
    # When parsed, then the request carries it, or the error names it and the shape
    if honoured:
        assert getattr(parse_sync_event(payload), field) is True
    else:
        with pytest.raises(InvalidRequest, match=rf"^{key}: not accepted with "):
            parse_sync_event(payload)


@pytest.mark.parametrize(
    ("event", "key", "field", "honoured"), _cases(LINEAGE_SHAPES, LINEAGE_HONOURS, LINEAGE_FIELDS)
)
def test_given_a_lineage_option_on_any_shape_when_parsed_then_honoured_or_refused_by_name(
    event: dict[str, Any], key: str, field: str, honoured: bool
) -> None:
    payload = {**event, key: True}
    if honoured:
        assert getattr(parse_emit_event(payload), field) is True
    else:
        with pytest.raises(InvalidRequest, match=rf"^{key}: not accepted with "):
            parse_emit_event(payload)


@pytest.mark.parametrize(
    ("parse", "event", "key"),
    [
        pytest.param(parse_sync_event, event, key, id=f"sync-{shape}-{key}")
        for shape, event in SYNC_SHAPES.items()
        for key in ("dryRun", "verify", "allowMassDelete")
    ]
    + [
        pytest.param(parse_emit_event, event, key, id=f"lineage-{shape}-{key}")
        for shape, event in LINEAGE_SHAPES.items()
        for key in ("dryRun", "force", "allowMassDelete")
    ],
)
def test_given_an_option_left_false_when_parsed_then_every_shape_accepts_it(
    parse: Parse, event: dict[str, Any], key: str
) -> None:
    # An option at its default asks nothing: a generated payload may spell every option out.
    assert parse({**event, key: False}) == parse(event)


@pytest.mark.parametrize(
    ("parse", "event"),
    [pytest.param(parse_sync_event, e, id=f"sync-{s}") for s, e in SYNC_SHAPES.items()]
    + [pytest.param(parse_emit_event, e, id=f"lineage-{s}") for s, e in LINEAGE_SHAPES.items()],
)
@pytest.mark.parametrize("key", ["dryrun", "force_", "detailType", "Detail", "$weird.key#-_"])
def test_given_an_unknown_key_on_any_shape_when_parsed_then_refused_naming_it(
    parse: Parse, event: dict[str, Any], key: str
) -> None:
    # Given any accepted shape with one more key (a typo of an option, or of an envelope key)
    payload = {**event, key: True}
    # When parsed, then refused, naming the key
    with pytest.raises(InvalidRequest, match=rf"^unexpected key '{key.replace('$', '[$]')}'"):
        parse(payload)


@pytest.mark.parametrize(
    ("parse", "key"), [(parse_sync_event, "force"), (parse_emit_event, "verify")], ids=["sync", "lineage"]
)
def test_given_the_other_functions_option_when_parsed_then_refused_naming_it(parse: Parse, key: str) -> None:
    # force is lineage-emission's; verify is schema-sync's
    with pytest.raises(InvalidRequest, match=rf"^unexpected key '{key}'"):
        parse(load_event(f"options/scheduled_{key}"))


def test_given_the_documented_fixtures_when_parsed_then_each_does_what_the_readme_says() -> None:
    # Given tests/events/options/README.md's table
    sync_dry = parse_sync_event(load_event("options/scheduled_dry_run"))
    emit_dry = parse_emit_event(load_event("options/scheduled_dry_run"))
    cloudtrail = parse_sync_event(load_event("options/glue_register_schema_version_dry_run"))
    drift = parse_sync_event(load_event("options/schema_drift_detected_dry_run"))
    forced = parse_emit_event(load_event("options/topic_asset_changed_force"))
    # Then each option reached the request, and the shape kept its meaning
    assert (sync_dry.dry_run, sync_dry.scope, sync_dry.trigger) == (True, "full", "schedule")
    assert (emit_dry.dry_run, emit_dry.mode, emit_dry.trigger) == (True, "all", "schedule")
    assert (cloudtrail.dry_run, cloudtrail.scope, cloudtrail.trigger) == (
        True,
        "schemas",
        "cloudtrail:RegisterSchemaVersion",
    )
    assert (drift.dry_run, drift.trigger) == (True, "drift")
    assert (forced.force, forced.mode, forced.trigger) == (True, "event", "topic-asset-changed:revised")
    assert parse_sync_event(load_event("options/scheduled_allow_mass_delete")).allow_mass_delete
    assert parse_emit_event(load_event("options/scheduled_allow_mass_delete")).allow_mass_delete
    assert parse_sync_event(load_event("options/scheduled_verify")).verify
    assert parse_emit_event(load_event("options/topic_asset_changed_dry_run")).dry_run


@pytest.mark.parametrize(
    ("parse", "fixture", "message"),
    [
        (parse_sync_event, "options/glue_register_schema_version_verify", "verify: not accepted with a Glue"),
        (parse_emit_event, "options/topic_asset_changed_allow_mass_delete", "allowMassDelete: not accepted"),
        (parse_sync_event, "options/scheduled_unknown_key", "unexpected key 'dryrun' in an EventBridge"),
        (parse_emit_event, "options/scheduled_unknown_key", "unexpected key 'dryrun' in an EventBridge"),
        (parse_sync_event, "options/scheduled_dry_run_as_string", "dryRun: Input should be a valid boolean"),
        (parse_emit_event, "options/scheduled_dry_run_as_string", "dryRun: Input should be a valid boolean"),
    ],
)
def test_given_a_refused_fixture_when_parsed_then_the_error_names_the_key(
    parse: Parse, fixture: str, message: str
) -> None:
    with pytest.raises(InvalidRequest, match=message):
        parse(load_event(fixture))


@pytest.mark.parametrize("parse", [parse_sync_event, parse_emit_event])
def test_given_a_replayed_event_when_parsed_then_replay_name_is_an_envelope_key(parse: Parse) -> None:
    # replay-name is one of AWS's documented envelope keys: a replayed schedule is a schedule
    assert "replay-name" in ENVELOPE_KEYS
    assert parse(load_event("options/scheduled_replayed")) == parse(load_event("lineage_scheduled"))


def test_given_a_refusal_then_it_says_why_and_what_the_shape_takes() -> None:
    with pytest.raises(InvalidRequest) as refused:
        parse_emit_event(load_event("options/topic_asset_changed_allow_mass_delete"))
    assert str(refused.value) == (
        "allowMassDelete: not accepted with a Topic Asset Changed event (the retraction fail-safe holds back "
        "only a run over every topic, {} or a Scheduled Event; a topic list or an event is never held back); "
        "the options it takes: dryRun, force, forceNonce, handover"
    )


def test_given_a_force_nonce_without_force_when_parsed_then_refused() -> None:
    # Only the function adds it, to a forced run's follow-up (any shape may be one)
    with pytest.raises(InvalidRequest, match="forceNonce"):
        parse_emit_event({"forceNonce": "6f1c1d2e-0000-4000-8000-000000000001"})
    followed = parse_emit_event({**load_event("options/topic_asset_changed_force"), "forceNonce": "abc-1"})
    assert (followed.force, followed.force_nonce, followed.mode) == (True, "abc-1", "event")


# --- the shared reader, with a third function's shapes (as a function that is not written yet would) ---
class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    dry_run: StrictBool = Field(default=False, alias="dryRun")


GRANT = Shape(
    "a Subscription Grant Requested event",
    frozenset({"dryRun"}),
    detail_type="Subscription Grant Requested",
    source="aws.datazone",
)
RECONCILE = Shape("{}", frozenset({"dryRun"}))
OTHER_SHAPES = (RECONCILE, GRANT)


def test_given_another_functions_shapes_when_read_then_shape_body_and_options_come_apart() -> None:
    # Given an event of that function's shape with an option beside the envelope
    event = {**load_event("lineage_scheduled"), "source": "aws.datazone"}
    event["detail-type"] = "Subscription Grant Requested"
    event["detail"] = {"metadata": {"domain": "dzd_1"}}
    # When read
    read = read_request({**event, "dryRun": True}, OTHER_SHAPES, _Options)
    # Then the shape is found, the options read, and the body is the envelope alone
    assert read.shape is GRANT
    assert read.options.dry_run is True
    assert read.given == frozenset({"dryRun"})
    assert dict(read.body) == event
    assert read.envelope is not None
    assert read.envelope.account == event["account"]


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ("not an object", "expected a JSON object, got str"),
        ({"source": "aws.datazone"}, "malformed EventBridge event"),
        ({**load_event("lineage_scheduled"), "source": "aws.s3"}, "unexpected EventBridge event"),
        ({**load_event("lineage_scheduled"), "a": 1, "b": 2}, "unexpected keys 'a', 'b' in an EventBridge"),
        ({"grants": []}, "unexpected key 'grants' \\(accepted: the options dryRun\\)"),
    ],
)
def test_given_what_no_shape_takes_when_read_then_refused_naming_it(event: Any, message: str) -> None:
    with pytest.raises(InvalidRequest, match=message):
        read_request(event, OTHER_SHAPES, _Options)
