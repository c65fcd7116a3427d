"""Topics as the cluster has them, in pure code: DescribeTopic's configs, what a run reads and decides from
the listing, the topic form, and the withoutTopic / withoutSchema reports."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from kafka_lineage.aws.topics import listed_topic
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import AssetType, FormSpec
from kafka_lineage.model.cluster_topics import (
    ListedTopic,
    TopicConfigs,
    TopicProperties,
    parse_configs,
)
from kafka_lineage.sync import plan
from kafka_lineage.sync.desired import Catalogued, Desired, desired_asset, source_fingerprint
from kafka_lineage.sync.result import SyncResult
from kafka_lineage.sync.topics import (
    LISTING_MOVED,
    TOPIC_FORM_TYPE,
    TopicSeen,
    current_properties,
    listing_moved,
    without_schema,
    without_topic,
)
from tests.fixtures import CLUSTER_ARN, load_event
from tests.unit.sync.test_drift_form import DETAILS, NAMESPACE, PARSED
from tests.unit.sync.test_drift_form import SOURCE as DRIFT_SOURCE
from tests.unit.sync.test_plan import SOURCE, listed, record

LONGEST = "t" * 249  # Kafka's longest legal topic name
PROPS = TopicProperties(6, 3, 604800000, "delete")


def configs_of(fixture: str) -> TopicConfigs:
    return parse_configs(load_event(f"topics/{fixture}").get("Configs"))


# ------------------------------------------------------------------------------------- DescribeTopic


def test_configs_are_read_from_base64_key_value_lines() -> None:
    # Given DescribeTopic's answer as the MSK guide shows it, when its configs are parsed
    configs = configs_of("describe_topic_properties")
    # Then retention and cleanup are read, the other configs ignored
    assert configs == TopicConfigs(604800000, "delete")


def test_infinite_retention_and_a_two_policy_cleanup_are_kept_as_kafka_means_them() -> None:
    # Given retention.ms=-1 and "compact, delete", spaced, after a comment, with CRLF line ends
    configs = configs_of("describe_topic_infinite_compacted")
    # Then -1 (no time limit) is kept, and the policy list is normalised
    assert configs == TopicConfigs(-1, "compact,delete")


def test_configs_as_a_json_object_are_read_too() -> None:
    # Given the pessimistic reading: the decoded configs are a JSON object
    assert configs_of("describe_topic_json_configs") == TopicConfigs(86400000, "compact")


@pytest.mark.parametrize(
    "encoded",
    [None, "", "!!not base64!!", "bm90IGEgY29uZmln", "eyJyZXRlbnRpb24ubXMiOiBbMV19"],
    ids=["absent", "empty", "not-base64", "no-key-value", "json-not-a-number"],
)
def test_unreadable_configs_are_left_out_never_guessed(encoded: str | None) -> None:
    assert parse_configs(encoded) == TopicConfigs()


def test_a_retention_that_is_not_a_number_is_left_out() -> None:
    import base64

    encoded = base64.b64encode(b"retention.ms=forever\ncleanup.policy=compact\n").decode()
    assert parse_configs(encoded) == TopicConfigs(None, "compact")


def test_an_answer_without_configs_has_none() -> None:
    assert configs_of("describe_topic_no_configs") == TopicConfigs()


def test_list_topics_rows_become_listed_topics() -> None:
    rows = [listed_topic(row) for row in load_event("topics/list_topics_page")["Topics"]]
    assert rows == [
        ListedTopic("__consumer_offsets", 50, 3),
        ListedTopic("dbserver1.inventory.customers", 6, 3),
        ListedTopic("orders", 12, 2),
    ]


# ------------------------------------------------------------------------------------- the asset record


def test_a_record_keeps_its_topic_properties_through_its_packed_entry() -> None:
    tracked = record("a", topic_properties=TopicProperties(6, 3, -1, "compact,delete"), topic_tracked=True)
    unknown = record("b", topic_tracked=True)
    legacy = record("c")
    for each in (tracked, unknown, legacy):
        assert AssetRecord.from_entry(each.schema_arn, each.to_entry()) == each
    assert "t" not in legacy.to_entry()  # a record of an older run stays as it was


# ------------------------------------------------------------------------------------- triage


def tracked(name: str, properties: TopicProperties | None = PROPS) -> AssetRecord:
    return record(name, topic_properties=properties, topic_tracked=True)


def test_an_unchanged_topic_listing_leaves_the_schema_unchanged() -> None:
    records = {r.schema_arn: r for r in (tracked("a"),)}
    triage = plan.triage_listing(SOURCE, [listed("a")], records, False, {"a": ListedTopic("a", 6, 3)})
    assert triage.candidates == ()
    assert len(triage.unchanged) == 1


@pytest.mark.parametrize(
    "listing", [ListedTopic("a", 12, 3), ListedTopic("a", 6, 2)], ids=["partitions", "rf"]
)
def test_a_changed_partition_count_or_replication_makes_the_schema_a_candidate(listing: ListedTopic) -> None:
    records = {r.schema_arn: r for r in (tracked("a"),)}
    triage = plan.triage_listing(SOURCE, [listed("a")], records, False, {"a": listing})
    assert [c.reason for c in triage.candidates] == [LISTING_MOVED]


def test_a_topic_that_appears_makes_its_schema_a_candidate() -> None:
    # Given a record made while the cluster did not list the topic
    records = {r.schema_arn: r for r in (tracked("a", None),)}
    triage = plan.triage_listing(SOURCE, [listed("a")], records, False, {"a": ListedTopic("a", 1, 3)})
    assert [c.reason for c in triage.candidates] == [LISTING_MOVED]


@pytest.mark.parametrize(
    ("rec", "listing"),
    [
        (record("a"), {"a": ListedTopic("a", 12, 3)}),  # an older record: verify's to migrate
        (tracked("a"), None),  # the listing failed: properties kept
        (tracked("a"), {}),  # the topic is gone from the cluster: reported, kept
    ],
    ids=["older-record", "listing-failed", "topic-not-listed"],
)
def test_what_the_hourly_run_leaves(rec: AssetRecord, listing: dict[str, ListedTopic] | None) -> None:
    assert not listing_moved(rec, listing)
    triage = plan.triage_listing(SOURCE, [listed("a")], {rec.schema_arn: rec}, False, listing)
    assert triage.candidates == ()


# ------------------------------------------------------------------------------------- DescribeTopic or not


DESCRIBED = TopicConfigs(1000, "compact")


class Describer:
    def __init__(self, answer: TopicConfigs | Exception = DESCRIBED) -> None:
        self.answer = answer
        self.calls = 0

    def __call__(self) -> TopicConfigs:
        self.calls += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


LISTING = {"a": ListedTopic("a", 6, 3)}


def test_a_new_asset_reads_the_topic_configs() -> None:
    describe = Describer()
    found, warning = current_properties(None, LISTING, "a", False, describe)
    assert (found, warning, describe.calls) == (TopicProperties(6, 3, 1000, "compact"), None, 1)


def test_an_unchanged_listing_keeps_the_known_configs_without_describing() -> None:
    describe = Describer()
    found, _ = current_properties(tracked("a"), LISTING, "a", False, describe)
    assert (found, describe.calls) == (PROPS, 0)


@pytest.mark.parametrize(
    ("rec", "verify"),
    [(tracked("a"), True), (tracked("a", TopicProperties(3, 3, 1, "delete")), False), (record("a"), False)],
    ids=["verify", "listing-moved", "older-record"],
)
def test_configs_are_read_again(rec: AssetRecord, verify: bool) -> None:
    describe = Describer()
    found, _ = current_properties(rec, LISTING, "a", verify, describe)
    assert (found, describe.calls) == (TopicProperties(6, 3, 1000, "compact"), 1)


@pytest.mark.parametrize("listing", [None, {}], ids=["listing-failed", "not-listed"])
def test_without_the_topic_in_a_listing_the_last_known_properties_stay(
    listing: dict[str, ListedTopic] | None,
) -> None:
    describe = Describer()
    assert current_properties(tracked("a"), listing, "a", True, describe) == (PROPS, None)
    assert current_properties(None, listing, "a", True, describe) == (None, None)
    assert describe.calls == 0


def test_a_failed_describe_keeps_the_listing_and_the_known_configs_and_warns() -> None:
    moved = tracked("a", TopicProperties(3, 3, 5, "compact"))
    found, warning = current_properties(moved, LISTING, "a", False, Describer(RuntimeError("AccessDenied")))
    assert found == TopicProperties(6, 3, 5, "compact")
    assert warning is not None
    assert "DescribeTopic failed" in warning
    assert "AccessDenied" in warning


# ------------------------------------------------------------------------------------- the topic form


def asset_type(with_topic_form: bool, revision: str = "3") -> AssetType:
    forms = {
        "KafkaSchemaFormType": FormSpec("KafkaSchemaFormType", "1", True),
        "MskSourceReferenceFormType": FormSpec("MskSourceReferenceFormType", "1", True),
        "AssetCommonDetailsForm": FormSpec("amazon.datazone.AssetCommonDetailsFormType", "6", True),
    }
    if with_topic_form:
        forms[TOPIC_FORM_TYPE] = FormSpec(TOPIC_FORM_TYPE, "1", False)
    return AssetType("KafkaTopicAssetType", revision, forms)


def built_with(kind: AssetType, properties: TopicProperties | None) -> Desired:
    return desired_asset(DRIFT_SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, kind), None, properties)


def topic_form(properties: TopicProperties | None, with_form: bool = True) -> dict[str, object] | None:
    kind = asset_type(with_form)
    built = desired_asset(
        DRIFT_SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, kind), None, properties=properties
    )
    forms = {form.form_name: json.loads(form.content) for form in built.content.forms}
    return forms.get(TOPIC_FORM_TYPE)


def test_the_topic_form_shows_the_properties_known() -> None:
    assert topic_form(TopicProperties(6, 3, -1, "compact,delete")) == {
        "partitions": 6,
        "replication_factor": 3,
        "retention_ms": -1,
        "cleanup_policy": "compact,delete",
    }
    assert topic_form(TopicProperties(6, 3)) == {"partitions": 6, "replication_factor": 3}


def test_the_topic_form_is_left_out_when_unknown_or_when_the_type_lacks_it() -> None:
    assert topic_form(None) is None
    assert topic_form(PROPS, with_form=False) is None


def test_a_partition_change_moves_the_content_hash_and_the_fingerprint() -> None:
    kind = asset_type(True)
    before = desired_asset(
        DRIFT_SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, kind), None, properties=PROPS
    )
    after = built_with(kind, replace(PROPS, partitions=12))
    same = desired_asset(
        DRIFT_SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, kind), None, properties=PROPS
    )
    assert before.content_hash != after.content_hash
    assert before.source_fingerprint != after.source_fingerprint
    assert (before.content_hash, before.source_fingerprint) == (same.content_hash, same.source_fingerprint)
    # and an unknown topic keeps the fingerprint a schema had before topics were read
    assert source_fingerprint(DETAILS, NAMESPACE, "3") == source_fingerprint(
        DETAILS, NAMESPACE, "3", topic=None
    )


def test_decide_revises_on_a_partition_change_and_records_the_topic() -> None:
    kind = asset_type(True)
    old = desired_asset(
        DRIFT_SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, kind), None, properties=PROPS
    )
    moved = replace(PROPS, partitions=12)
    new = desired_asset(
        DRIFT_SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, kind), None, properties=moved
    )
    rec = AssetRecord(
        registry_name=DETAILS.registry_name,
        schema_name=DETAILS.schema_name,
        schema_arn=DETAILS.schema_arn,
        asset_id="a1",
        latest_version=2,
        data_format="AVRO",
        namespace=NAMESPACE,
        updated_time=DETAILS.updated_time,
        created_time=DETAILS.created_time,
        content_hash=old.content_hash,
        schema_version_id=DETAILS.versions[-1].version_id,
        source_fingerprint=old.source_fingerprint,
        previous_version=1,
        topic_properties=PROPS,
        topic_tracked=True,
    )
    candidate = plan.Candidate(
        DETAILS.registry_name, DETAILS.schema_name, DETAILS.schema_arn, LISTING_MOVED, rec
    )
    action = plan.decide(candidate, DETAILS, new, NAMESPACE, TopicSeen(moved, True))
    assert isinstance(action, plan.Revise)
    assert action.new_record.topic_properties == moved
    assert action.new_record.latest_version == 2  # the schema's side is untouched
    # Given the same properties, nothing is written
    assert plan.decide(candidate, DETAILS, old, NAMESPACE, TopicSeen(PROPS, True)) is None


# ------------------------------------------------------------------------------------- the reports


WEIRD = ("orders", "inventory.parts$#v2", "__debezium-heartbeat.dbserver1", "a-b_c.d", LONGEST)


def test_schemas_whose_topic_the_cluster_does_not_list_are_reported() -> None:
    # Given schemas with Glue's names ($ and # are no Kafka topic's) and a heartbeat the source excludes
    schemas = [listed(name) for name in WEIRD] + [listed("gone", status="DELETING")]
    listing = {"orders": ListedTopic("orders", 1, 3), LONGEST: ListedTopic(LONGEST, 1, 3)}
    # Then the mirrored ones without topic are listed; excluded and deleting schemas are not
    assert without_topic(SOURCE, schemas, listing) == [
        {"registryName": "cdc", "topic": "inventory.parts$#v2"},
        {"registryName": "cdc", "topic": "a-b_c.d"},
    ]


def test_topics_no_schema_names_are_reported_without_kafkas_internal_ones() -> None:
    names = ["__consumer_offsets", "__debezium-heartbeat.dbserver1", "orders", "x-y_z.w", LONGEST]
    listing = {name: ListedTopic(name, 1, 3) for name in names}
    assert without_schema(CLUSTER_ARN, listing, {"orders"}) == [
        {"clusterArn": CLUSTER_ARN, "topic": LONGEST},
        {"clusterArn": CLUSTER_ARN, "topic": "x-y_z.w"},
    ]


def test_the_reports_and_topic_errors_are_in_the_result_and_are_no_failure() -> None:
    result = SyncResult(dry_run=False, trigger="schedule")
    result.report_without_topic([{"registryName": "cdc", "topic": "inventory.parts$#v2"}])
    result.report_without_schema([{"clusterArn": CLUSTER_ARN, "topic": "orphan"}])
    result.record_topic_errors([{"clusterArn": CLUSTER_ARN, "error": "ListTopics: ForbiddenException: no"}])
    shown = result.to_dict()
    assert shown["withoutTopic"] == [{"registryName": "cdc", "topic": "inventory.parts$#v2"}]
    assert (shown["withoutTopicTotal"], shown["withoutSchemaTotal"], shown["topicErrorsTotal"]) == (1, 1, 1)
    assert shown["withoutSchema"] == [{"clusterArn": CLUSTER_ARN, "topic": "orphan"}]
    assert shown["topicErrors"][0]["clusterArn"] == CLUSTER_ARN
    assert shown["failed"] == []
    assert shown["failedTotal"] == 0
