"""Every behaviour of AWS that its documentation leaves open, as one switch each.

Tests flip a switch to prove the code under test is right whichever way AWS really behaves. The defaults
follow the documentation where it says anything, and the stricter reading where it says nothing.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Readings:
    updated_time_moves_on_new_version: bool = True
    """Glue: does RegisterSchemaVersion move the schema's `UpdatedTime` in ListSchemas? Likely, but
    undocumented. When False, UpdatedTime moves only on UpdateSchema, so a sync that skips schemas by
    UpdatedTime misses new versions."""

    deleted_schemas_linger: int = 0
    """Glue: in how many ListSchemas results a deleted schema still appears, with SchemaStatus DELETING,
    before it is gone. DeleteSchema and DeleteRegistry are asynchronous and SchemaStatus has a DELETING
    value, yet ListSchemas' docs say "Schemas in Deleting status will not be included". 0 follows the docs."""

    deleted_versions_linger: int = 1
    """Glue: in how many ListSchemaVersions results a version removed by DeleteSchemaVersions still appears,
    with Status DELETING, before it is gone. DeleteSchemaVersions' docs say a later listing shows the deleted
    versions' status; ListSchemaVersions' docs say versions in Deleted status are left out."""

    deleted_connectors_linger: int = 1
    """MSK Connect: in how many ListConnectors results a connector removed by DeleteConnector still appears,
    with connectorState DELETING, before it is gone (DescribeConnector finds it as long). Deletion is
    asynchronous (DeleteConnector answers DELETING); how long the listing shows it is undocumented. Counted
    by moto's state manager (model "kafkaconnect::connector-deletion", lifecycle.py)."""

    ssm_reserved_prefix_every_level: bool = True
    """SSM: does the "can't be prefixed with aws or ssm" rule apply to every level of a hierarchical name
    (`/app/awsome/x`) or only to the first? The docs speak of the name's prefix; True is the stricter
    reading."""

    # DataZone (read by local/standins/datazone/; state.READING_DEFAULTS mirror these defaults).
    reject_unknown_form_members: bool = True
    """DataZone: does CreateAsset/CreateAssetRevision reject form content members that the form type's model
    does not declare? Undocumented; True is the stricter reading."""

    delete_requires_unpublish: bool = False
    """DataZone: does DeleteAsset refuse (ConflictException) an asset whose listing is still ACTIVE, until it
    is unpublished? The DataZone user guide ("Delete an Amazon DataZone asset") says "You can delete an asset
    and its related listing in the catalog": False follows it. Under True the sync's single DeleteAsset is
    refused, and it then unpublishes, waits for the listing to turn INACTIVE and deletes again."""

    subscribed_delete_refusal: str = "conflict"
    """DataZone: the error DeleteAsset answers while the asset's listing has an APPROVED subscription. The
    user guide says such a listing can't be deleted ("You can't delete an asset listing that has existing
    subscribers"); the API reference lists ConflictException and ValidationException for DeleteAsset and
    names no error for this case. "conflict" (the state of another resource forbids it) or "validation"."""

    unpublish_unlisted: str = "not_found"
    """DataZone: what CreateListingChangeSet with action UNPUBLISH answers for an asset that was never
    published. Not documented (the API reference lists ResourceNotFoundException, ConflictException and
    ValidationException for the operation; no guide speaks of it). "not_found" (the listing to withdraw does
    not exist), "conflict", "validation", or "accepted" (a no-op answering INACTIVE)."""

    rule_refusal_names_rule: bool = True
    """DataZone: does the error that refuses a publish a domain rule forbids (METADATA_FORM_ENFORCEMENT or
    GLOSSARY_TERM_ENFORCEMENT, action CREATE_LISTING_CHANGE_SET) name the rule? The SageMaker Unified Studio
    guide ("Metadata enforcement rules for publishing") describes the rules, not the error; the API reference
    names no rule-specific error. The stand-in answers ValidationException either way: True names the rule,
    its id, its domain unit and what is missing; False says only that the domain's requirements are unmet
    (the sync then names the rules itself, from ListRules)."""

    glossary_rule_requires: str = "all"
    """DataZone: does a GLOSSARY_TERM_ENFORCEMENT rule need "all" of its required terms on the asset, or
    "any" one? Undocumented; "all" is the stricter reading."""

    search_lag_calls: int = 0
    """DataZone: after how many further Search calls does Search see a write (create, revision, delete)?
    The search index is eventually consistent; by how much is undocumented."""

    lineage_processing_lag_calls: int = 0
    """DataZone: after how many lineage reads does a posted lineage event turn SUCCESS (and feed lineage
    nodes)? Processing is asynchronous (REQUESTED, PROCESSING, SUCCESS); its delay is undocumented."""

    normalize_form_content: bool = True
    """DataZone: does form content come back re-serialized (compact, keys sorted) rather than byte-for-byte
    as sent? Undocumented; a sync comparing content must not depend on it."""

    client_token_ttl_seconds: int = 86_400
    """DataZone: how long is a clientToken remembered for idempotency? Undocumented for DataZone."""

    client_token_replays_changed_request: bool = False
    """DataZone: a clientToken reused with a *different* request: a ConflictException (AWS's usual rule,
    e.g. EC2's IdempotentParameterMismatch), or a replay of the first request's answer, changing nothing?
    DataZone's API reference only says the token "ensures idempotency". Under True a writer that reuses a
    token for changed content silently keeps the old content: tokens must derive from the content too."""

    search_text_matches_external_identifier: bool = False
    """DataZone: does free-text Search match an asset's externalIdentifier? Not documented as indexed."""

    revision_keeps_type_revision: bool = True
    """DataZone: does CreateAssetRevision without typeRevision keep the asset's type revision (else the
    latest)? Undocumented."""

    revision_changes_type_revision: bool = True
    """DataZone: may CreateAssetRevision move an asset to another revision of its asset type (its
    `typeRevision` member, "The revision type of the asset")? Not said. The API reference's prerequisites
    say a form's typeRevision "should be the latest version of form type" (botocore 1.44's model), which
    a form can only be once its asset moves to the type revision pinning that form revision, and the
    console edits asset types as new revisions for assets to use: True follows that. False: an asset stays
    at the type revision it was created with (ValidationException naming both revisions), so a form that
    only a newer type revision has (the drift form) cannot be added; the catalog then revises the asset at
    its own type revision with the forms that revision has, and the result warns."""

    conflict_message_names_asset: bool = True
    """DataZone: does CreateAsset's ConflictException for a duplicate externalIdentifier name the asset
    ("Conflict with asset <id>")? Public code parses the id out of it; the message is no contract. When
    False the message names no asset and the caller must find it (Search)."""

    search_type_filter: str = "honoured"
    """DataZone: what Search does with a filter on the attribute `typeName`. The API reference lists no
    filterable attributes; `typeName` is what the console and public samples filter on. "honoured": it
    selects assets of that type; "unindexed": it matches nothing, as a filter on any attribute Search does
    not index; "rejected": ValidationException. The catalog never depends on it: it filters Search's
    results by `AssetItem.typeIdentifier` (a required member of Search's output) and, when the filtered
    search finds nothing or is refused, searches the project's assets without a type filter."""

    listing_change_calls: int = 0
    """DataZone: for how many further DataZone calls in the domain a listing change stays in progress.
    CreateListingChangeSet answers a status CREATING | ACTIVE | INACTIVE, so listing changes are
    asynchronous; how long they take, what a listing shows meanwhile and what a second change does are
    undocumented. Here, while a change is in progress, a PUBLISH shows the listing CREATING, an UNPUBLISH
    still shows it ACTIVE, and any further change of that listing is refused (ConflictException). 0: every
    change takes effect at once."""

    asset_type_create_existing: str = "revision"
    """DataZone: CreateAssetType with the name of an asset type the project already owns. "revision": a new
    revision (the user guide says asset types are versioned and the console edits a type as a new revision;
    AWS's Data Solutions Framework calls CreateAssetType on every CloudFormation update); "conflict":
    ConflictException, as CreateAssetType's API text says ("The name of the asset type must be unique
    within the domain — duplicate names will cause failure"). DeleteAssetType is documented to fail while
    assets use the type."""

    asset_type_common_details: str = "added"
    """DataZone: does an asset type get AssetCommonDetailsForm by itself, and what does declaring it do? The
    CreateAssetType example in the API reference answers with a formsOutput holding AssetCommonDetailsForm
    (amazon.datazone.AssetCommonDetailsFormType) that the request did not declare; whether a request that
    declares it is accepted is not said. "added" (the default, what the example shows): added when not
    declared, a declared one kept as declared; "refused": added, and declaring it is a ValidationException;
    "absent": never added (the type holds exactly the declared forms). The asset-type resource declares it
    (assets write its sourceIdentifier) and, when the declaration is refused, creates the type without it and
    accepts the form DataZone adds (lambdas/asset_type_resource/provision.py)."""

    managed_form_revision_must_be_latest: bool = True
    """DataZone: may a managed form type (amazon.datazone.*) be used at a revision older than its latest? The
    CreateAssetRevision prerequisites say a form's typeRevision "should be the latest version of form type"
    (botocore 1.44's model). True (the stricter reading): CreateAssetType and an asset's forms at an older
    managed revision are a ValidationException naming both revisions. The asset-type resource re-resolves
    managed revisions (GetFormType) on every deploy and, when CreateAssetType is refused for a stale one,
    once more before retrying."""

    delete_asset_type_in_use: str = "conflict"
    """DataZone: the error of DeleteAssetType while assets of the type exist. DeleteAssetType's API text lists
    ConflictException and ValidationException; the user guide says a type in use cannot be deleted without
    naming the error. "conflict" (the default) or "validation"; the asset-type resource reports either as
    "still used by assets"."""

    managed_form_members_undeclared: str = ""
    """DataZone: members of the managed form types that AWS documents only by example, left out of the
    stand-in's models of those types (comma-separated `FormType.path`, e.g.
    "RelationalTableFormType.tableName,RelationalTableFormType.columns.description").

    What AWS documents (checked in the DataZone user guide, the SageMaker Unified Studio user guide and
    botocore's datazone service model, which describes no form type's members):
    - AssetCommonDetailsFormType.sourceIdentifier: documented. SageMaker Unified Studio user guide,
      "Troubleshooting data lineage", shows GetAsset output with form AssetCommonDetailsForm, typeName
      amazon.datazone.AssetCommonDetailsFormType and content {"sourceIdentifier": "arn:aws:glue:…"}; "The
      importance of the sourceIdentifier attribute to lineage nodes" says assets join lineage nodes by it.
    - RelationalTableFormType: the DataZone user guide, "Create custom asset types", says it adds "technical
      metadata to columns (including column names, description, and data type)". The member names
      `tableName`, `columns`, `columns.columnName`, `columns.dataType` appear only in AWS-authored code
      (aws-samples' DataZone lineage sample; AWS Data Solutions Framework's MSK and Kinesis asset types);
      `columns.description` appears nowhere. All five are readings.
    The sync reads the pinned managed form type's model (GetFormType) and writes only the members it
    declares, so it holds with any of them undeclared while `reject_unknown_form_members` is True."""

    lineage_delete_lag_calls: int = 0
    """DataZone: after how many further lineage reads does a DeleteLineageEvent take effect? Deletion is
    asynchronous (its answer carries a `processingStatus`); until then GetLineageEvent and ListLineageEvents
    still return the event and the graph still draws it. Its delay is undocumented."""

    lineage_delete_removes_edges: bool = True
    """DataZone: does deleting a lineage event remove the edges it drew? Undocumented. When False, a deleted
    event's edges stay in the graph until a run with the same input and a later eventTime supersedes them
    (DataZone versions lineage nodes by event time). The default keeps True because a retracted topic (no
    later run) cannot be superseded; tests run the remap under False."""

    lineage_time_filter: str = "eventTime"
    """DataZone: which time ListLineageEvents' `timestampAfter` / `timestampBefore` filter on, "eventTime" or
    "createdAt". The API reference says only "the after timestamp of a lineage event"."""

    lineage_start_builds_edges: bool = True
    """DataZone: does a START RunEvent draw edges in the lineage graph, or only the run's later events
    (COMPLETE)? Undocumented; the emitter posts both, each with the full inputs and outputs."""

    lineage_node_lookup_posted: bool = True
    """DataZone: does GetLineageNode resolve the sourceIdentifier of a node that only posted lineage events
    drew (no native Glue/Redshift/EMR lineage, no asset)? The API reference says `identifier` takes "both, a
    lineage node identifier generated by Amazon DataZone and a sourceIdentifier" (up to 1,800 characters),
    naming no exception, so True follows it. When False such a node answers ResourceNotFoundException by
    sourceIdentifier and resolves only by its node id, which no lineage API hands back to the poster."""

    lineage_node_neighbours: str = "all"
    """DataZone: which neighbours GetLineageNode's `upstreamNodes` / `downstreamNodes` list. DataZone
    versions a node with every event that touches it, and GetLineageNode takes an `eventTimestamp` ("the
    event time stamp for which you want to get the data lineage node"); whether the node at that time lists
    the neighbours of all its versions up to then or only those of its latest version is undocumented.
    "all": every neighbour any version up to then linked, each with the latest time one did (each reference
    carries an `eventTimestamp`); "latest_version": only those the latest version up to then linked (a table
    whose last event was its own load then lists nothing downstream)."""

    # Subscription grants (local/standins/datazone/grants.py). Which status changes
    # UpdateSubscriptionGrantStatus accepts is undocumented: the API reference lists the statuses and a
    # ConflictException, nothing more. The path *_PENDING -> *_IN_PROGRESS -> GRANTED | REVOKED | *_FAILED
    # is always accepted; crossing from the grant side to the revoke side, or back from a finished status,
    # always refused. The defaults below are the permissive, plausible side; tests run the other too.
    grant_status_repeat_accepted: bool = True
    """DataZone: does UpdateSubscriptionGrantStatus accept the status an asset already has (GRANTED again
    after GRANTED: a fulfiller that re-reports after a lost answer)? True: accepted, no new event; False:
    refused (see `grant_status_refusal`)."""

    grant_status_retry_after_failure: bool = True
    """DataZone: may an asset whose grant failed (GRANT_FAILED) be reported GRANT_IN_PROGRESS or GRANTED
    again, and a failed revoke (REVOKE_FAILED) REVOKE_IN_PROGRESS or REVOKED: a retry? DataZone documents no
    retry of its own. False: refused, and a failed grant stays failed until the subscription is revoked."""

    grant_status_skips_in_progress: bool = True
    """DataZone: may a pending asset be reported GRANTED (REVOKED) without first GRANT_IN_PROGRESS
    (REVOKE_IN_PROGRESS)? The public fulfillers report in-progress first; whether DataZone insists is
    undocumented."""

    grant_status_refusal: str = "conflict"
    """DataZone: the error UpdateSubscriptionGrantStatus answers for a status change it does not accept:
    "conflict" (ConflictException, listed for the operation) or "validation" (ValidationException)."""

    data_product_event_type_name: str = "product"
    """DataZone: the `data.asset.typeName` of the grant events of a subscription to a data product listing
    (whose grant lists all the product's assets). No sample of these events exists. "product": "DataProduct"
    (a fulfiller whose rule filters on its asset type never receives them, and meets such grants only in a
    reconciling run); "asset": the type of the product's first asset the target takes."""

    data_product_name_taken: str = "conflict"
    """DataZone: the error CreateDataProduct answers for a name another product of the domain has. The API
    reference says the name must be unique within the domain, without naming the error: "conflict"
    (ConflictException, listed for the operation) or "validation" (ValidationException)."""

    data_product_delete_requires_unpublish: bool = True
    """DataZone: whether DeleteDataProduct refuses a published product (ConflictException) until it is
    unpublished (CreateListingChangeSet UNPUBLISH). The API reference's prerequisites don't say. True is
    the harder side: the caller unpublishes, then deletes again."""

    # MSK cluster policies (local/standins/kafka_policies.py).
    cluster_policy_absent: str = "not_found"
    """MSK: what GetClusterPolicy answers for a cluster that has no policy. The API reference lists
    NotFoundException for the operation without saying when. "not_found" (NotFoundException) or "empty"
    (an answer without Policy and CurrentVersion)."""

    cluster_policy_put_unversioned: str = "rejected"
    """MSK: PutClusterPolicy without CurrentVersion on a cluster that already has a policy. The API reference
    says only "The policy version". "rejected" (BadRequestException: the caller must name the version it
    read, the stricter reading) or "overwrites" (last writer wins). A CurrentVersion that is not the
    policy's is refused either way."""

    # Managed delivery paths and federated catalogs (kafka_channels.py, firehose.py, glue_catalogs.py).
    channel_creating_reads: int = 0
    """MSK: for how many reads (ListChannels pages, DescribeChannel) a new channel stays CREATING before it
    reads ACTIVE. Creation is asynchronous (the guide lists a CREATING state); how long is undocumented.
    Counted by moto's state manager (model "kafka::channel", lifecycle.py)."""

    topic_configs_encoding: str = "properties"
    """MSK: what DescribeTopic's `Configs` holds once base64-decoded. The API model says only "Topic
    configurations encoded as a Base64 string"; the MSK developer guide ("Describe a topic") shows
    `key=value` lines. "properties" follows the guide; "json" answers a JSON object of the same keys (the
    sync reads both, and reads anything else as no configs)."""

    deleted_channels_linger: int = 1
    """MSK: in how many ListChannels results a channel removed by DeleteChannel still appears, DELETING. The
    API reference: "The channel transitions through DELETING and is removed when the asynchronous delete
    completes"; how long that takes is undocumented. Counted by moto's state manager (model
    "kafka::channel-deletion", lifecycle.py)."""

    delivery_stream_creating_reads: int = 0
    """Firehose: for how many DescribeDeliveryStream calls a new stream stays CREATING before ACTIVE.
    Counted by moto's state manager (model "firehose::delivery-stream", lifecycle.py)."""

    glue_lineage_job_edges: str = "every"
    """Glue Data Catalog lineage: which runs draw a job's edges in the graph, "every" run ever posted or
    only the "latest" (by eventTime)? The guide says a node "represents one dataset or one run", the console
    shows a job's "latest run" among its details, events are immutable and nothing posted can be deleted; how
    a later run that reads or writes other datasets changes the job's edges is undocumented. "every" is the
    reading chosen: nothing removes an edge once drawn, so a remapped topic's old table keeps its edge, and a
    closing run (a COMPLETE run of the old job that reads and writes nothing) is what the emitter posts."""

    glue_lineage_processing_lag_calls: int = 0
    """Glue Data Catalog lineage: after how many further GetLineageNode calls does an accepted
    PostLineageEvent show in the graph? "A successful response means that AWS Glue accepted the event. It
    doesn't mean that the graph is already updated"; the guide says minutes."""

    federated_catalog_id_in_answer: str = "qualified"
    """Glue: the `CatalogId` member of a table read from a federated catalog
    (`<account>:s3tablescatalog/<bucket>`). The API reference says only "the ID of the Data Catalog in which
    the table resides".
    "qualified": the id the caller sent; "account": the account alone. The table's ARN must come out the
    same either way."""

    channels_on_standard_brokers: str = "bad_request"
    """MSK: what ListChannels answers for a cluster of standard (not Express) brokers. The guide says
    channels are for Express brokers only, not what the API answers elsewhere. "bad_request":
    BadRequestException; "empty": no channels. Lineage lists nothing there either way, and fails nothing."""
