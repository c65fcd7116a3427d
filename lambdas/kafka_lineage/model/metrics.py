"""Every metric the functions publish and every alarm the stack raises, defined once.

The emitting code names its metrics from here (`kafka_lineage.observability.emit`), the stack's alarms read
them from here (stacks/monitoring.py, stacks/functions.py), and docs/operate.md's metrics and alarms tables
are generated from here (docs/gen_metrics.py). tests/unit/test_metrics_catalog.py runs the emitting code and
fails on a metric it publishes that this catalog lacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SCHEMA_SYNC = "schema-sync"
LINEAGE = "lineage-emission"
BOTH = "both"
SUBSCRIPTION_GRANTS = "subscription-grants"

# When a metric is published: on every run that is no dry run (the cost estimate counts these), or only on
# the occasion it names.
EVERY_RUN = "every run"


@dataclass(frozen=True)
class Metric:
    """One metric of the `KafkaLineage` namespace (dimension `service`)."""

    name: str
    function: str  # SCHEMA_SYNC, LINEAGE, BOTH or SUBSCRIPTION_GRANTS
    meaning: str
    unit: Literal["Count", "Bytes"] = "Count"
    when: str = EVERY_RUN


# schema-sync, every run (kafka_lineage/sync/result.py)
SCHEMAS_CREATED = Metric("SchemasCreated", SCHEMA_SYNC, "Assets created for new schemas.")
SCHEMAS_UPDATED = Metric("SchemasUpdated", SCHEMA_SYNC, "Assets revised (a new version, drift, a new form).")
SCHEMAS_DELETED = Metric("SchemasDeleted", SCHEMA_SYNC, "Assets deleted because their schema was deleted.")
SCHEMAS_UNCHANGED = Metric("SchemasUnchanged", SCHEMA_SYNC, "Schemas inspected whose asset was up to date.")
SCHEMAS_FAILED = Metric("SchemasFailed", SCHEMA_SYNC, "Schemas that failed; each is in the run's `failed`.")
ASSETS_ADOPTED = Metric(
    "AssetsAdopted",
    SCHEMA_SYNC,
    "Existing assets carrying the schema's identifier, adopted rather than created.",
)
ASSETS_PUBLISHED = Metric(
    "AssetsPublished", SCHEMA_SYNC, "Assets published by a later run after a domain rule had refused them."
)
PUBLISHES_REFUSED = Metric(
    "PublishesRefused", SCHEMA_SYNC, "Publishes a domain rule refused (the asset stays)."
)
DELETIONS_HELD = Metric(
    "DeletionsHeld", SCHEMA_SYNC, "Deletions held while subscribers keep the listing (not failures)."
)
SCHEMAS_WITHOUT_TOPIC = Metric(
    "SchemasWithoutTopic",
    SCHEMA_SYNC,
    "Mirrored schemas whose topic the cluster does not list (the result's `withoutTopic`; nothing is "
    "deleted).",
)
TOPICS_WITHOUT_SCHEMA = Metric(
    "TopicsWithoutSchema",
    SCHEMA_SYNC,
    "Topics of a source's cluster that no mirrored schema names, Kafka's internal `__` topics aside "
    "(`withoutSchema`).",
)
TOPIC_LISTINGS_FAILED = Metric(
    "TopicListingsFailed",
    SCHEMA_SYNC,
    "Clusters whose topics could not be listed (`topicErrors`): their assets keep the properties last known.",
)
EVENTS_FAILED = Metric(
    "EventsFailed", SCHEMA_SYNC, '"Topic Asset Changed" events that could not be put on the default bus.'
)

# schema-sync, every run with `dataProducts` (kafka_lineage/sync/products): one metric per change.
_PRODUCTS_RUN = "every run with `dataProducts` that is no dry run"
DATA_PRODUCTS_CREATED = Metric(
    "DataProductsCreated",
    SCHEMA_SYNC,
    "Data products created (or adopted) and published.",
    when=_PRODUCTS_RUN,
)
DATA_PRODUCTS_REVISED = Metric(
    "DataProductsRevised", SCHEMA_SYNC, "Data products revised: their topics changed.", when=_PRODUCTS_RUN
)
DATA_PRODUCTS_DELETED = Metric(
    "DataProductsDeleted", SCHEMA_SYNC, "Data products deleted: no topic matches them.", when=_PRODUCTS_RUN
)
DATA_PRODUCTS_HELD = Metric(
    "DataProductsHeld",
    SCHEMA_SYNC,
    "Data products no topic matches, kept while a subscription to them is approved (not failures).",
    when=_PRODUCTS_RUN,
)
DATA_PRODUCTS_UNCHANGED = Metric(
    "DataProductsUnchanged", SCHEMA_SYNC, "Data products up to date: nothing written.", when=_PRODUCTS_RUN
)
DATA_PRODUCT_METRICS = (
    DATA_PRODUCTS_CREATED,
    DATA_PRODUCTS_REVISED,
    DATA_PRODUCTS_DELETED,
    DATA_PRODUCTS_HELD,
    DATA_PRODUCTS_UNCHANGED,
)

# lineage-emission, every run (kafka_lineage/lineage/result.py)
LINEAGE_EMITTED = Metric(
    "LineageEmitted", LINEAGE, "Edges posted (a topic to a table, a source to a topic) in this run."
)
LINEAGE_UNCHANGED = Metric(
    "LineageUnchanged", LINEAGE, "Edges posted before and unchanged: not posted again."
)
LINEAGE_UNMAPPED_TOPICS = Metric(
    "LineageUnmappedTopics", LINEAGE, "Topics no mapping or rule maps to a table."
)
LINEAGE_INVALID_MAPPINGS = Metric("LineageInvalidMappings", LINEAGE, "Operators' mapping parameters refused.")
LINEAGE_FAILED = Metric(
    "LineageFailed", LINEAGE, "Topics whose lineage failed; each is in the run's `failed`."
)
LINEAGE_RETRACTED = Metric("LineageRetracted", LINEAGE, "Earlier runs deleted: their topic or edge is gone.")
LINEAGE_DEFERRED = Metric(
    "LineageDeferred", LINEAGE, "Edges left for the follow-up invocation: the deadline came first."
)
LINEAGE_DEGRADED_RUNS = Metric(
    "LineageDegradedRuns", LINEAGE, "Events posted with facets dropped to fit 300,000 bytes (`degraded`)."
)
LINEAGE_AMBIGUOUS_TOPICS = Metric(
    "LineageAmbiguousTopics",
    LINEAGE,
    "Topics a sink with several tables cannot say it feeds which of (`ambiguous`).",
)
LINEAGE_UNDETERMINED_TOPICS = Metric(
    "LineageUndeterminedTopics",
    LINEAGE,
    "Topics a connector routes dynamically or otherwise undecidably (`undetermined`).",
)
SCHEMA_DRIFT_DETECTED = Metric(
    "SchemaDriftDetected", LINEAGE, '"Schema Drift Detected" events announced (any severity).'
)
SCHEMA_DRIFT_BREAKING = Metric(
    "SchemaDriftBreaking",
    LINEAGE,
    "Breaking drifts announced: a field feeding a table column removed, retyped or renamed.",
)

# Published on occasion only
LINEAGE_CONNECTORS_UNREADABLE = Metric(
    "LineageConnectorsUnreadable",
    LINEAGE,
    "MSK Connect connectors that could not be read (their edges are kept as they are).",
    when="when a connector could not be read",
)
LINEAGE_LARGEST_EVENT_BYTES = Metric(
    "LineageLargestEventBytes",
    LINEAGE,
    "The largest lineage event the run posted, in bytes (DataZone's limit is 300,000).",
    unit="Bytes",
    when="when the run posted an event",
)
LINEAGE_DRY_RUNS = Metric(
    "LineageDryRuns",
    LINEAGE,
    "Dry runs; a dry run publishes only this, so that planned counts never feed an alarm.",
    when="on a dry run, instead of the counts",
)
LINEAGE_BUSY = Metric(
    "LineageBusy",
    LINEAGE,
    "Invocations that found another one writing the state and handed their event to a follow-up.",
    when="when the state's lease is held",
)
SOURCE_ROLE_FAILURES = Metric(
    "SourceRoleFailures",
    BOTH,
    "A source account's role could not be assumed: that source's items fail, the others go on.",
    when="when a source role cannot be assumed",
)

# subscription-grants (kafka_lineage/grants/result.py); the stack deploys the function when `access` is set.
_GRANTS_RUN = "every run of subscription-grants that is no dry run"
GRANTS_FULFILLED = Metric(
    "GrantsFulfilled", SUBSCRIPTION_GRANTS, "Grant assets reported GRANTED by this run.", when=_GRANTS_RUN
)
GRANTS_REVOKED = Metric(
    "GrantsRevoked", SUBSCRIPTION_GRANTS, "Grant assets reported REVOKED by this run.", when=_GRANTS_RUN
)
GRANTS_FAILED = Metric(
    "GrantsFailed",
    SUBSCRIPTION_GRANTS,
    "Grant assets reported GRANT_FAILED or REVOKE_FAILED; each is in the run's `failed` with its cause.",
    when=_GRANTS_RUN,
)
GRANTS_STUCK = Metric(
    "GrantsStuck",
    SUBSCRIPTION_GRANTS,
    "Grants of the stack's asset type pending or in progress for over an hour (counted by the reconciling "
    "run).",
    when=_GRANTS_RUN,
)
GRANTS_DRY_RUNS = Metric(
    "GrantsDryRuns",
    SUBSCRIPTION_GRANTS,
    "Dry runs of subscription-grants (they publish nothing else).",
    when="on a dry run",
)

METRICS: tuple[Metric, ...] = (
    SCHEMAS_CREATED,
    SCHEMAS_UPDATED,
    SCHEMAS_DELETED,
    SCHEMAS_UNCHANGED,
    SCHEMAS_FAILED,
    ASSETS_ADOPTED,
    ASSETS_PUBLISHED,
    PUBLISHES_REFUSED,
    DELETIONS_HELD,
    SCHEMAS_WITHOUT_TOPIC,
    TOPICS_WITHOUT_SCHEMA,
    TOPIC_LISTINGS_FAILED,
    EVENTS_FAILED,
    *DATA_PRODUCT_METRICS,
    LINEAGE_EMITTED,
    LINEAGE_UNCHANGED,
    LINEAGE_UNMAPPED_TOPICS,
    LINEAGE_INVALID_MAPPINGS,
    LINEAGE_FAILED,
    LINEAGE_RETRACTED,
    LINEAGE_DEFERRED,
    LINEAGE_DEGRADED_RUNS,
    LINEAGE_AMBIGUOUS_TOPICS,
    LINEAGE_UNDETERMINED_TOPICS,
    SCHEMA_DRIFT_DETECTED,
    SCHEMA_DRIFT_BREAKING,
    LINEAGE_CONNECTORS_UNREADABLE,
    LINEAGE_LARGEST_EVENT_BYTES,
    LINEAGE_DRY_RUNS,
    LINEAGE_BUSY,
    SOURCE_ROLE_FAILURES,
    GRANTS_FULFILLED,
    GRANTS_REVOKED,
    GRANTS_FAILED,
    GRANTS_STUCK,
    GRANTS_DRY_RUNS,
)


@dataclass(frozen=True)
class Alarm:
    """One alarm of the stack: its construct id, what it reads, when it fires and what to do then."""

    construct_id: str
    reads: str  # the metric as a reader finds it in CloudWatch
    description: str  # the alarm's description in CloudWatch
    fires_when: str
    what_to_do: str
    metrics: tuple[Metric, ...] = ()  # the catalog's metrics it sums (none: an AWS metric)


ERRORS = Alarm(
    "ErrorsAlarm",
    "Lambda's `Errors` metric; one alarm per function, `SchemaSync…ErrorsAlarm`, `Lineage…ErrorsAlarm` and, "
    "with `access`, `SubscriptionGrants…ErrorsAlarm`",
    "failed (after finishing every item it could): see its logs",
    "an invocation failed: the function finished every item it could, then raised with the run's summary as "
    "JSON in the error message",
    "Read the function's log group: the error line carries the summary, its `failed` list names each "
    "schema (`schemaArn`), registry (`registryName`), topic or table and AWS's answer. Fix the cause (a "
    "permission, a missing table, a source role: see below) and let the next schedule run, or invoke the "
    "function by hand ([Run it by hand](invocation.md#run-it-by-hand)). Lambda retries an asynchronous "
    "invocation twice; then the event goes to the failure queue.",
)
FAILED_ITEMS = Alarm(
    "FailedItemsAlarm",
    "the sum of `SchemasFailed`, `EventsFailed` and `LineageFailed`",
    "Schemas, topics or events failed in a run (the summary is in the error log)",
    "schemas, topics or events failed in a run",
    "The same summary is in the error log. `EventsFailed`: schema-sync could not put "
    '"Topic Asset Changed" on the default bus (its role\'s `events:PutEvents`, the bus); the next lineage '
    "schedule still emits every mapped topic. A failure naming `cannot assume role … AccessDenied` is a "
    "source role's trust or external id ([Two accounts]"
    "(deploy.md#two-accounts-a-governance-account-and-source-accounts)). A held-back mass deletion is "
    'reported under `failed`: check the registry, then invoke with `"allowMassDelete": true` if '
    "the deletions are meant.",
    (SCHEMAS_FAILED, EVENTS_FAILED, LINEAGE_FAILED),
)
FAILURE_QUEUE = Alarm(
    "FailureQueueAlarm",
    "the failure queue's `ApproximateNumberOfMessagesVisible`",
    "Invocations gave up after their retries; the events wait in the failure queue",
    "an invocation gave up after its retries; its event waits in the encrypted failure queue "
    "(`FailureQueueUrl`)",
    "Each message carries the original event (`requestPayload`): fix the cause as above, then re-drive by "
    "invoking the function with that payload, and delete the message.",
)
BREAKING_DRIFT = Alarm(
    "BreakingSchemaDriftAlarm",
    "`SchemaDriftBreaking`",
    "A new schema version removes, retypes or renames a field that feeds a table column "
    "(the Schema Drift Detected event and the lineage function's log name the tables)",
    "a new schema version removes, retypes or renames a field that feeds a table column",
    'Read the "Schema Drift Detected" event (sent to the alarm topic too with `notifyBreakingDrift`) or the '
    "lineage function's log: it names the topic, the versions, the changed fields and the impacted tables "
    "and columns. Tell the table's owners before the sink's next write, or roll the schema back. See "
    "[Schema drift](schema-drift.md).",
    (SCHEMA_DRIFT_BREAKING,),
)

GRANTS_FAILED_ALARM = Alarm(
    "GrantsFailedAlarm",
    "`GrantsFailed`; only with `access`",
    "Subscription grants failed (GRANT_FAILED or REVOKE_FAILED): each grant's failureCause says why",
    "a grant or a revoke of a topic asset was reported GRANT_FAILED or REVOKE_FAILED",
    "The grant's `failureCause` in DataZone (and the run's `failed` in the subscription-grants log) names "
    "the cause: a role outside `access.consumerRoles`, a permissions boundary that denies the access, a "
    "role without room in IAM's limits, a consumer account whose role could not be assumed "
    "(`access.consumerAccountRole`), or a source account's cluster whose source stack lacks `grantAccess` "
    "(AccessDenied on its cluster policy). Fix it, then let the next reconciling run retry, or invoke the "
    "function with `{}`; a subscriber may also ask again.",
    (GRANTS_FAILED,),
)
GRANTS_STUCK_ALARM = Alarm(
    "GrantsStuckAlarm",
    "`GrantsStuck` (its hourly maximum); only with `access`",
    "Subscription grants of the asset type have been pending or in progress for over an hour",
    "a reconciling run found grants of the stack's asset type pending or in progress for over an hour",
    "DataZone's events are best effort: the reconciling run finishes such grants itself, so a grant that "
    "stays stuck is one the run cannot finish. Read the subscription-grants log for the grant's id: a "
    "busy role lease, a deadline reached (`incomplete`), or a DataZone error. Check that the `grants` "
    "schedule is on.",
    (GRANTS_STUCK,),
)

ALARMS: tuple[Alarm, ...] = (
    ERRORS,
    FAILED_ITEMS,
    FAILURE_QUEUE,
    BREAKING_DRIFT,
    GRANTS_FAILED_ALARM,
    GRANTS_STUCK_ALARM,
)


def alarms_reading(metric: Metric) -> tuple[Alarm, ...]:
    """The alarms that read `metric`."""
    return tuple(alarm for alarm in ALARMS if metric in alarm.metrics)
