"""What the code relies on for each reading of local/standins/readings.py, and the tests that flip it.

docs/aws-readings.md's table is generated from the two (docs/gen_readings.py): the switch, its question (the
first sentence of its docstring), its default, `relies` from here, and the tests cited here (each a test file
under tests/, or `file::test name`; the docs build fails on one that does not exist) besides every other test
file that names the switch. A switch without an entry here, or an entry without a switch, fails the build.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cited:
    relies: str  # what the code relies on, whichever way AWS behaves
    tests: tuple[str, ...] = ()  # the tests that show it, under tests/


CITED: dict[str, Cited] = {
    "updated_time_moves_on_new_version": Cited(
        (
            "Not relied on: hourly runs skip by it; the daily `verify` run and RegisterSchemaVersion "
            "events catch a version it hides."
        ),
        (
            "integration/sync/test_schema_sync.py::test_verify_catches_a_version_the_listing_did_not_show",
            "integration/standins/test_glue_schema_listings.py",
        ),
    ),
    "deleted_schemas_linger": Cited(
        "Either way: DELETING and absent both mean gone.",
        ("integration/standins/test_glue_schema_listings.py",),
    ),
    "deleted_versions_linger": Cited(
        "Either way: only AVAILABLE versions count.",
        (
            "integration/standins/test_glue_schema_listings.py::test_delete_schema_versions_marks_them_deleting_then_removes_them",
            "integration/sync/test_readings.py::test_a_deleted_latest_version_moves_the_asset_back_whether_or_not_it_lingers",
        ),
    ),
    "deleted_connectors_linger": Cited(
        "Either way: a connector listed DELETING, or gone between listing and describing, has no edges.",
        (
            "integration/connectors/test_msk_connect_reads.py::test_a_connector_deleted_between_listing_and_describing_simply_has_no_edges",
        ),
    ),
    "ssm_reserved_prefix_every_level": Cited(
        "Assumed yes: packed names (`assets/<2 hex>-<chunk>`) never start a level with either.",
        ("integration/standins/test_ssm_parameter_rules.py",),
    ),
    "reject_unknown_form_members": Cited(
        "Assumed yes: only declared members are written.",
        (
            "unit/standins/test_datazone_assets.py",
            "integration/sync/test_readings.py",
        ),
    ),
    "delete_requires_unpublish": Cited(
        (
            "Not relied on: the sync makes one DeleteAsset, which the user guide says deletes the asset "
            "and its listing; only when DataZone refuses it for a listing still ACTIVE does it unpublish, "
            "wait for the listing to turn INACTIVE (GetListing) and delete again."
        ),
        (
            "integration/governed/test_governed_catalog.py::test_a_published_asset_goes_with_one_delete_asset",
            "integration/governed/test_governed_catalog.py::test_under_the_reading_that_datazone_wants_an_unpublish_first_it_unpublishes_and_deletes",
            "unit/standins/test_datazone_assets.py",
            "integration/sync/test_readings.py::test_create_revise_and_delete_cope_with_listing_changes_in_progress",
        ),
    ),
    "subscribed_delete_refusal": Cited(
        (
            "Either error: a refused delete asks ListSubscriptions, and a listing with approved "
            "subscriptions holds the deletion (`held`), never a failure."
        ),
        (
            "integration/governed/test_governed_catalog.py::test_a_subscribed_asset_is_held_revised_to_show_its_schema_deleted_and_deleted_once_unsubscribed",
            "unit/standins/test_datazone_governance.py::test_delete_is_refused_while_the_listing_has_an_approved_subscription",
        ),
    ),
    "unpublish_unlisted": Cited(
        "Each answer means nothing to withdraw: the unpublish is done.",
        (
            "integration/governed/test_governed_catalog.py::test_unpublishing_a_never_published_asset_is_nothing_to_withdraw_whatever_datazone_answers",
            "unit/standins/test_datazone_governance.py::test_unpublishing_a_never_published_asset_answers_by_the_reading",
        ),
    ),
    "rule_refusal_names_rule": Cited(
        (
            "Not relied on: when the refusal names no rule, the sync names the rules itself (GetProject, "
            "then ListRules of the project's domain unit)."
        ),
        (
            "integration/governed/test_governed_catalog.py::test_a_refused_publish_names_the_rule_from_the_message_or_from_list_rules",
            "integration/sync/test_governed_sync.py::test_a_refused_publish_leaves_the_asset_and_the_next_run_publishes_it_without_creating_again",
            "unit/standins/test_datazone_governance.py::test_given_the_reading_that_names_no_rule_then_the_message_is_generic",
        ),
    ),
    "glossary_rule_requires": Cited(
        (
            "Not relied on: `glossaryTerms` puts every configured term on each asset, which satisfies "
            "either reading."
        ),
        (
            "unit/standins/test_datazone_governance.py::test_a_glossary_rule_needs_all_or_any_of_its_terms_by_the_reading",
        ),
    ),
    "search_lag_calls": Cited(
        (
            "A lookup that misses fails that schema with the conflict, never creates a duplicate; the "
            "next run adopts."
        ),
        (
            "unit/standins/test_datazone_search.py",
            "integration/sync/test_readings.py::test_an_asset_search_does_not_see_yet_fails_its_schema_and_a_later_run_adopts_it",
        ),
    ),
    "lineage_processing_lag_calls": Cited(
        (
            "Not relied on: emission state records what was posted; a lost answer is found again by runId "
            "(ListLineageEvents)."
        ),
        ("unit/standins/test_datazone_lineage.py",),
    ),
    "normalize_form_content": Cited(
        "Not relied on: the sync compares a hash of what it wrote, never DataZone's rendering.",
        (
            "unit/standins/test_datazone_assets.py",
            "integration/sync/test_readings.py::test_an_unchanged_rerun_writes_nothing_whatever_datazone_does_with_content_and_type_revisions",
        ),
    ),
    "client_token_ttl_seconds": Cited(
        "Not relied on: a retry after the window meets the first asset as a conflict and adopts it.",
        (
            "unit/standins/test_datazone_assets.py",
            "integration/sync/test_readings.py",
            "integration/lineage/test_lineage_emission.py",
        ),
    ),
    "client_token_replays_changed_request": Cited(
        (
            "Either: the token derives from the content as well, so a changed retry is a new request: a "
            "conflict on the identifier, then an adoption, never a silent replay of the first answer."
        ),
        (
            "integration/sync/test_create_tokens.py",
            "unit/standins/test_datazone_assets.py::test_given_the_same_token_and_another_request_then_conflict",
        ),
    ),
    "search_text_matches_external_identifier": Cited(
        "Not relied on: every hit is checked, and the type's assets are scanned after.",
        (
            "unit/standins/test_datazone_search.py",
            "integration/sync/test_readings.py::test_an_existing_asset_is_adopted_without_the_conflict_naming_it",
        ),
    ),
    "revision_keeps_type_revision": Cited(
        "Not relied on: every write names the type revision.",
        ("unit/standins/test_datazone_assets.py",),
    ),
    "revision_changes_type_revision": Cited(
        (
            "Tried (assets migrate onto the type revision with the drift form); when refused, the asset "
            "is revised at its own type revision with the forms that revision has, and the result warns."
        ),
        (
            "integration/sync/test_drift_form_migration.py",
            "unit/standins/test_datazone_readings.py",
        ),
    ),
    "conflict_message_names_asset": Cited(
        (
            "`Conflict with asset <id>` is used when present and that asset carries our identifier; "
            "otherwise Search finds it."
        ),
        (
            "integration/sync/test_readings.py::test_an_existing_asset_is_adopted_without_the_conflict_naming_it",
        ),
    ),
    "search_type_filter": Cited(
        (
            "Tried first, never relied on: results are checked by `AssetItem.typeIdentifier`; when the "
            "filter finds nothing or is refused, the project's assets are searched without it. "
            "`searchText` stays within its documented 512 characters (a longer identifier is not "
            "text-searched)."
        ),
        (
            "unit/standins/test_datazone_readings.py",
            "integration/sync/test_readings.py",
        ),
    ),
    "listing_change_calls": Cited(
        (
            "Changes may be in progress: a publish refused meanwhile is retried and, under "
            "`delete_requires_unpublish`, an unpublish is waited for (GetListing) before DeleteAsset is "
            "sent again, both within 60 s; past that the schema fails and the next run finishes."
        ),
        (
            "unit/standins/test_datazone_readings.py",
            "integration/sync/test_readings.py",
        ),
    ),
    "asset_type_create_existing": Cited(
        (
            "Both: a new revision, or on ConflictException the type is read again (equal: done), replaced "
            "when no asset uses it, else kept at its revision with `NotConverged` in the resource's data, "
            "the deploy going on."
        ),
        (
            "integration/test_asset_type_resource.py",
            "unit/standins/test_datazone_readings.py",
        ),
    ),
    "asset_type_common_details": Cited(
        (
            "The asset-type resource declares the form (assets write its `sourceIdentifier`); when "
            "CreateAssetType refuses the declaration it creates the type without it and takes the form "
            "DataZone adds."
        ),
        (
            "integration/test_asset_type_readings.py::test_the_type_carries_common_details_however_datazone_treats_the_declaration",
            "integration/test_asset_type_readings.py::test_the_standin_adds_or_refuses_common_details_per_the_reading",
        ),
    ),
    "managed_form_revision_must_be_latest": Cited(
        (
            "Assumed yes: the asset-type resource re-reads managed revisions (GetFormType) on every "
            "deploy, and once more before retrying a CreateAssetType refused for a stale one."
        ),
        (
            "integration/test_asset_type_readings.py::test_old_managed_revisions_stay_usable_when_datazone_allows_them",
            "infrastructure/test_governed_stack.py::test_the_asset_type_resource_changes_with_every_synthesis_so_each_deploy_re_resolves",
        ),
    ),
    "delete_asset_type_in_use": Cited(
        ('Either error: reported as "still used by assets", with what to do.'),
        (
            "integration/test_asset_type_readings.py::test_deleting_a_type_in_use_fails_with_advice_whatever_the_error",
        ),
    ),
    "managed_form_members_undeclared": Cited(
        (
            "`sourceIdentifier` is written; RelationalTableForm members only when the pinned model "
            "(GetFormType) declares them, the form left out when it lacks "
            "`columns.columnName`/`columns.dataType`."
        ),
        (
            "unit/sync/test_desired_managed_forms.py",
            "unit/standins/test_datazone_readings.py",
            "integration/sync/test_readings.py::test_only_declared_managed_members_are_written_while_unknown_members_are_rejected",
        ),
    ),
    "lineage_delete_lag_calls": Cited(
        (
            "Not relied on: a deletion counts only once GetLineageEvent no longer finds the event, "
            "checked at once and on every later run; sent again if processing FAILED or the event is "
            "still there after 3 checks. The replaced run stays in state until then."
        ),
        (
            "integration/lineage/test_lineage_checkpoints.py::test_a_retraction_counts_only_once_its_deletions_are_processed",
            "unit/standins/test_datazone_lineage.py",
        ),
    ),
    "lineage_delete_removes_edges": Cited(
        (
            "Not relied on for a remap: a replacing run's `eventTime` is strictly later than every run it "
            "replaces, so DataZone (which versions nodes by event time) supersedes the old edge. A "
            "retracted topic (no later run) keeps its edge in DataZone if deletion does not remove it."
        ),
        (
            "integration/lineage/test_lineage_checkpoints.py::test_a_remap_back_to_an_earlier_edge_leaves_no_ghost_whatever_deletion_does",
        ),
    ),
    "lineage_time_filter": Cited(
        (
            "Not relied on: a run is looked up by runId in a window around its `eventTime` and another "
            "around the time it was posted, with margins, so either time and either kind of bound finds "
            "it."
        ),
        (
            "integration/lineage/test_lineage_checkpoints.py::test_a_lost_response_is_found_again_whichever_time_list_events_filters_on",
        ),
    ),
    "lineage_start_builds_edges": Cited(
        "Not relied on: every run posts START and COMPLETE with the same inputs and outputs.",
        (
            "integration/lineage/test_lineage_checkpoints.py::test_the_edge_is_drawn_whether_or_not_start_events_draw_edges",
        ),
    ),
    "lineage_node_lookup_posted": Cited(
        (
            "Relied on by the drift walk, which starts from the table ARN; otherwise such a table (no "
            "native lineage, no asset) reads as having no lineage node: nothing downstream, said in the "
            "walk's report, no error."
        ),
        (
            "integration/lineage/test_downstream_graph.py::test_a_table_only_posted_events_drew_is_found_only_if_its_source_identifier_resolves",
            "unit/drift/test_downstream_standin_graph.py",
        ),
    ),
    "lineage_node_neighbours": Cited(
        (
            "The drift walk reads the present graph and relies on every version's neighbours being "
            "listed; under the other reading it sees what each node's latest event linked, so a table "
            "last written by its own sink run shows nothing downstream."
        ),
        (
            "integration/lineage/test_downstream_graph.py",
            "unit/drift/test_downstream_standin_graph.py",
        ),
    ),
    "channel_creating_reads": Cited(
        (
            "A channel is read with the status AWS answers; one not ACTIVE is reported under "
            "`inactivePaths`, "
            "its edges kept as configured, and a later read sees it ACTIVE."
        ),
        (
            "integration/delivery/test_delivery_creating_readings.py::test_a_new_channel_and_stream_read_creating_until_aws_says_active",
            "unit/delivery/test_delivery_resolve.py::test_unread_paths_and_failed_listings_keep_their_edges_and_notes_are_reported",
        ),
    ),
    "deleted_channels_linger": Cited(
        "Either way: a channel listed DELETING or gone is retracted like any removed path.",
        (
            "integration/lineage/test_lineage_delivery.py::test_a_deleted_channel_is_retracted_and_an_unreadable_listing_keeps_the_streams_edge",
            "integration/delivery/test_delivery_reads.py::test_a_recreated_channel_is_described_again_and_a_stream_after_its_refresh",
        ),
    ),
    "delivery_stream_creating_reads": Cited(
        (
            "A stream is read with the status AWS answers; one not ACTIVE is reported under `inactivePaths`, "
            "its edges kept as configured, and a later read sees it ACTIVE."
        ),
        (
            "integration/delivery/test_delivery_creating_readings.py::test_a_new_channel_and_stream_read_creating_until_aws_says_active",
            "unit/delivery/test_delivery_resolve.py::test_unread_paths_and_failed_listings_keep_their_edges_and_notes_are_reported",
        ),
    ),
    "glue_lineage_job_edges": Cited(
        (
            "Chosen: every run stays drawn, so a remapped topic's old edge stays in Glue's graph. The "
            "emitter posts, for an edge it drops, a COMPLETE run of the old job that reads and writes "
            "nothing (not while another current edge names that job): under the other reading that run "
            "removes the old edge, under this one it is the old job's latest run."
        ),
        (
            "integration/lineage/test_glue_lineage.py::test_a_remapped_topic_closes_its_old_job_under_either_reading",
            "unit/standins/test_glue_lineage_standin.py",
        ),
    ),
    "glue_lineage_processing_lag_calls": Cited(
        (
            "Not relied on: the Glue target's state records what Glue accepted; nothing reads the graph back "
            "(only a person's `kafka-lineage lineage --check-glue`, which says when a post is still pending)."
        ),
        ("unit/standins/test_glue_lineage_standin.py",),
    ),
    "federated_catalog_id_in_answer": Cited(
        "Not relied on: the table's catalog and ARN come from the request, the same under either answer.",
        (
            "integration/delivery/test_delivery_reads.py::test_federated_catalog_tables_keep_their_catalog_and_arn_under_both_readings",
            "integration/standins/test_delivery_standins.py::test_federated_catalog_tables_are_read_with_a_qualified_catalog_id",
        ),
    ),
    "channels_on_standard_brokers": Cited(
        "Either way: lineage lists nothing there and fails nothing.",
        (
            "integration/delivery/test_delivery_reads.py::test_a_cluster_of_standard_brokers_lists_no_channels_and_fails_nothing",
        ),
    ),
    "grant_status_repeat_accepted": Cited(
        "Not relied on: a grant already GRANTED (REVOKED) is left alone; its status is not reported again.",
        ("unit/standins/test_datazone_access.py",),
    ),
    "grant_status_retry_after_failure": Cited(
        (
            "Either way: a failed grant is retried by the reconciling run; where DataZone refuses the retry, "
            "the grant stays GRANT_FAILED with its cause until the subscription is revoked."
        ),
        ("unit/standins/test_datazone_access.py",),
    ),
    "grant_status_skips_in_progress": Cited(
        "Not relied on: every grant is reported GRANT_IN_PROGRESS (REVOKE_IN_PROGRESS) before its outcome.",
        ("unit/standins/test_datazone_access.py",),
    ),
    "grant_status_refusal": Cited(
        "Either way: a refused status change is reported as that grant's failure, never retried in a loop.",
        ("unit/standins/test_datazone_access.py",),
    ),
    "data_product_event_type_name": Cited(
        (
            "Either way: a grant is read from the API (its listing's assets and their types), never from the "
            "event's typeName; the reconciling run meets a data product's grants whichever type the "
            "event names."
        ),
        ("integration/standins/test_access_standins.py",),
    ),
    "data_product_name_taken": Cited(
        (
            "Either way: a product is created under one clientToken per name, so a create retried after a "
            "crash answers the first product; a create refused (either error) adopts the project's product "
            "of that name (Search), and one of another project's is a failure naming it."
        ),
        ("integration/sync/test_data_products.py",),
    ),
    "data_product_delete_requires_unpublish": Cited(
        "Either way: a refused delete unpublishes the product, then deletes it again.",
        ("integration/sync/test_data_products.py",),
    ),
    "cluster_policy_absent": Cited(
        "Either way: no policy and an empty answer both mean no statement to keep.",
        ("integration/standins/test_cluster_policies_and_iam_limits.py",),
    ),
    "cluster_policy_put_unversioned": Cited(
        (
            "Not relied on: every put names the version it read, and a refused version is re-read and "
            "merged again."
        ),
        ("integration/standins/test_cluster_policies_and_iam_limits.py",),
    ),
    "topic_configs_encoding": Cited(
        (
            "Either way: `key=value` lines and a JSON object are both read; anything else is read as no "
            "configs, never guessed."
        ),
        ("integration/sync/test_topics.py",),
    ),
}
