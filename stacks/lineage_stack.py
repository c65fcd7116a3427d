"""The lineage stack: DataZone types, the functions, their triggers, mappings, alarms, an optional trail."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from kafka_lineage.config import ConfigError
from kafka_lineage.model.events import DRIFT_DETAIL_TYPE, DRIFT_SOURCE, TopicAssetChanged
from kafka_lineage.model.state_layout import LEASE_PATH, LINEAGE_HOLDER, SCHEMA_SYNC_HOLDER

from .bundling import dependencies_layer
from .config import DeploymentContext, StackConfig, as_stack_config
from .datazone_types import DataZoneTypes
from .functions import MEMBER_DESIGNATION, FunctionSpec, LineageFunction
from .grants import SubscriptionGrants
from .lineage_nag import LineageNag
from .lineage_triggers import LineageTriggers
from .monitoring import Monitoring
from .nag import topic_wildcard
from .resources import SharedResources, log_retention
from .trail import ManagementEventsTrail

# Added to the settings' environment; counts towards Lambda's 4 KB limit (checked by load_config).
# Results can be large (a dry run lists its plan): keep them out of X-Ray segments, which cap at 64 KB.
EXTRA_ENVIRONMENT = {"POWERTOOLS_TRACER_CAPTURE_RESPONSE": "false"}
SCHEMA_SYNC_HANDLER = "schema_sync.handler.handler"
LINEAGE_HANDLER = "lineage_emission.handler.handler"
# Reserved concurrency when `reserveConcurrency` is on: one schema-sync at a time (overlapping full
# syncs only repeat work; correctness never depends on it), and a small bound on lineage fan-out.
SCHEMA_SYNC_CONCURRENCY = 1
LINEAGE_CONCURRENCY = 2


class KafkaLineage(LineageNag, LineageTriggers):
    """The whole governance-account deployment (types, both functions, triggers, alarms), in any stack.

    `config` takes the keys of the `kafkaLineage` cdk.json context (docs/deploy.md): a dict (or its JSON
    text) validated as cdk.json is, with errors naming the key at fault, or the typed model
    (`DeploymentContext`, exported as `kafka_lineage_cdk.KafkaLineageConfig`). `stackName` only names the
    repository's own stack; here the enclosing stack is the caller's.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: Mapping[str, Any] | DeploymentContext | StackConfig,
    ) -> None:
        super().__init__(scope, construct_id)
        self.config = config = as_stack_config(config, extra_environment=EXTRA_ENVIRONMENT)
        settings, deployment = config.settings, config.deployment
        for key in config.placeholders:
            cdk.Annotations.of(self).add_warning_v2(
                "kafka-lineage:placeholder",
                f"cdk.json context {key} is a placeholder: set it before `cdk deploy` (docs/deploy.md)",
            )
        for warning in config.warnings:
            cdk.Annotations.of(self).add_warning_v2("kafka-lineage:config", warning)
        self._check_regions()
        # Fixed role names (projectMembership "manual") follow the enclosing stack's name.
        stack_name = cdk.Stack.of(self).stack_name
        retention = log_retention(deployment.log_retention_days)
        environment = {**settings.to_environment(), **EXTRA_ENVIRONMENT}

        self.layer = dependencies_layer(self, "Dependencies")
        self.failure_queue = sqs.Queue(
            self,
            "FailureQueue",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=cdk.Duration.days(14),
        )

        shared = SharedResources(
            layer=self.layer,
            failure_queue=self.failure_queue,
            log_retention=retention,
            domain_id=settings.domain_id,
            project_id=settings.project_id,
            create_membership=deployment.project_membership == "stack",
            kms_key_arn=deployment.domain_kms_key_arn,
        )
        self.types = DataZoneTypes(
            self,
            "DataZoneTypes",
            shared,
            asset_type_name=settings.asset_type_name,
            removal_policy=deployment.asset_type_removal_policy,
            domain_unit_id=deployment.domain_unit_id,
            handler_role_name=config.role_name("AssetTypeHandler", stack_name),
        )

        reserve = deployment.reserve_concurrency
        self.schema_sync = LineageFunction(
            self,
            "SchemaSync",
            FunctionSpec(
                handler=SCHEMA_SYNC_HANDLER,
                description="Mirrors Glue Schema Registry schemas into DataZone assets (KafkaTopicAssetType)",
                environment=environment,
                memory_mb=deployment.schema_sync_memory_mb,
                timeout_seconds=deployment.schema_sync_timeout_seconds,
                reserved_concurrency=SCHEMA_SYNC_CONCURRENCY if reserve else None,
                role_name=config.role_name("SchemaSync", stack_name),
            ),
            shared,
        )
        self.lineage = LineageFunction(
            self,
            "LineageEmission",
            FunctionSpec(
                handler=LINEAGE_HANDLER,
                description="Posts OpenLineage runs (Kafka topic -> Glue table) to DataZone",
                environment=environment,
                memory_mb=deployment.lineage_memory_mb,
                timeout_seconds=deployment.lineage_timeout_seconds,
                reserved_concurrency=LINEAGE_CONCURRENCY if reserve else None,
                role_name=config.role_name("LineageEmission", stack_name),
            ),
            shared,
        )
        # Before any type is created: the domain, the project, its grants, key and members as the stack needs
        # them, each missing piece named (lambdas/asset_type_resource/governance.py).
        self.types.add_governance_check(
            members={
                "schema-sync": (self.schema_sync.role, MEMBER_DESIGNATION),
                "lineage-emission": (self.lineage.role, MEMBER_DESIGNATION),
                "asset-type-resource": (self.types.handler_role, "PROJECT_OWNER"),
            },
            kms_key_arn=deployment.domain_kms_key_arn,
            membership_mode=deployment.project_membership,
            cluster_regions=tuple(source.region for source in settings.sources),
            after=[fn.membership for fn in (self.schema_sync, self.lineage) if fn.membership is not None],
        )
        self._grant_schema_sync()
        self._grant_lineage()
        self._triggers()
        self._table_mappings()
        # subscription-grants, only with `access` (stacks/grants.py says why).
        self.subscription_grants: SubscriptionGrants | None = None
        if deployment.access is not None:
            self.subscription_grants = SubscriptionGrants(
                self,
                config=config,
                shared=shared,
                extra_environment=EXTRA_ENVIRONMENT,
                reserve=reserve,
                target=self._target,
            )

        self.monitoring = Monitoring(
            self,
            "Monitoring",
            failure_queue=self.failure_queue,
            alarm_email=deployment.alarm_email,
            alarm_topic_arn=deployment.alarm_topic_arn,
        )
        function_alarms = [self.schema_sync.errors_alarm, self.lineage.errors_alarm]
        if self.subscription_grants is not None:
            self.monitoring.add_grant_alarms()
            function_alarms.append(self.subscription_grants.function.errors_alarm)
        self.monitoring.notify(*function_alarms)
        if deployment.notify_breaking_drift:
            self.monitoring.send_breaking_drift(DRIFT_SOURCE, DRIFT_DETAIL_TYPE)

        self.trail: ManagementEventsTrail | None = None
        if deployment.create_cloud_trail:
            self.trail = ManagementEventsTrail(
                self, "CloudTrail", retention_days=deployment.cloud_trail_retention_days
            )

        self._accept_source_events()
        # What a source account's stack trusts (stacks/source_stack.py: trustedRoleArns).
        cdk.CfnOutput(self, "SchemaSyncRoleArn", value=self.schema_sync.role.role_arn)
        cdk.CfnOutput(self, "LineageRoleArn", value=self.lineage.role.role_arn)
        cdk.CfnOutput(self, "SchemaSyncFunctionName", value=self.schema_sync.function.function_name)
        cdk.CfnOutput(self, "LineageFunctionName", value=self.lineage.function.function_name)
        cdk.CfnOutput(self, "FailureQueueUrl", value=self.failure_queue.queue_url)
        cdk.CfnOutput(self, "AssetTypeName", value=self.types.asset_type_name)
        cdk.CfnOutput(self, "AssetTypeRevision", value=self.types.asset_type_revision)
        self._suppress_nag_findings()

    # The enclosing stack's ARN helpers, so that the grants read as they did when this was the stack.
    def format_arn(self, **components: Any) -> str:
        return cdk.Stack.of(self).format_arn(**components)

    @property
    def partition(self) -> str:
        return cdk.Stack.of(self).partition

    def get_logical_id(self, element: cdk.CfnElement) -> str:
        return cdk.Stack.of(self).get_logical_id(element)

    def _check_regions(self) -> None:
        """Refuse a source cluster in another region than the stack's, when the stack's region is known.

        The functions call Glue, MSK and MSK Connect with clients of their own region, and build the
        registries' ARNs in it: a cluster elsewhere would fail at run time. Supporting it on purpose would
        take region-correct clients and ARNs throughout; until then, one region per deployment (deploy the
        stack once per region).
        """
        region = cdk.Stack.of(self).region
        if cdk.Token.is_unresolved(region):
            return  # an environment-agnostic stack: the region is known at deploy time only
        for index, source in enumerate(self.config.settings.sources):
            if source.region != region:
                raise ConfigError(
                    f"cdk.json context kafkaLineage.sources[{index}].clusterArn is in {source.region}, but "
                    f"the stack deploys to {region}: deploy a stack in {source.region} for that cluster"
                )

    # --- IAM ------------------------------------------------------------------------------------------
    # Which resource types an action accepts is the IAM Service Authorization Reference's (SAR) word, and
    # tests/infrastructure/sar.py checks every statement against it. An action with no resource type is
    # granted only on "*"; each such grant says so where it is made.
    def _registry_arns(self) -> list[str]:
        arns: list[str] = []
        for name in self.config.own_registry_names:
            arns.append(self.format_arn(service="glue", resource="registry", resource_name=name))
            arns.append(self.format_arn(service="glue", resource="schema", resource_name=f"{name}/*"))
        return arns

    def _parameter_arn(self, suffix: str = "") -> str:
        path = self.config.settings.mapping_path.lstrip("/") + suffix
        return self.format_arn(
            service="ssm",
            resource="parameter",
            resource_name=path,
            arn_format=cdk.ArnFormat.SLASH_RESOURCE_NAME,
        )

    def _grant_schema_sync(self) -> None:
        fn = self.schema_sync
        # SAR: these DataZone actions take no resource type, so only "*" grants them; DataZone then
        # authorises each call by the role's project membership (PROJECT_CONTRIBUTOR).
        fn.allow(
            "DataZoneAssets",
            [
                "datazone:GetAssetType",
                # the managed form types' models: only the members they declare are written
                "datazone:GetFormType",
                "datazone:CreateAsset",
                "datazone:CreateAssetRevision",
                "datazone:GetAsset",
                "datazone:DeleteAsset",
                "datazone:Search",
                "datazone:CreateListingChangeSet",
                "datazone:GetListing",
                # governed domains (SAR: no resource type either): a deletion is held while the listing has
                # approved subscriptions, and a publish a domain rule refuses names the rule (the project's
                # domain unit, its rules)
                "datazone:ListSubscriptions",
                "datazone:GetProject",
                "datazone:ListRules",
            ],
            ["*"],
        )
        if self.config.settings.data_products:
            # The data products (kafka_lineage.sync.products; SAR: no resource type either). Search,
            # publishing and ListSubscriptions are granted above; their state lies under assets/products/.
            fn.allow(
                "DataZoneDataProducts",
                [
                    "datazone:CreateDataProduct",
                    "datazone:CreateDataProductRevision",
                    "datazone:GetDataProduct",
                    "datazone:DeleteDataProduct",
                ],
                ["*"],
            )
        if self.config.own_registry_names:  # sources in other accounts are read through their roles
            fn.allow(
                "GlueSchemaRegistryRead",
                [
                    "glue:ListSchemas",
                    "glue:ListSchemaVersions",
                    "glue:GetSchema",
                    "glue:GetSchemaVersion",
                ],
                self._registry_arns(),
            )
        if any(source.namespace is None for source in self.config.own_sources):
            # SAR: kafka:GetBootstrapBrokers takes no resource type ("*" only). Needed only to derive
            # the default namespace of a source without an explicit one.
            fn.allow("MskBootstrapBrokers", ["kafka:GetBootstrapBrokers"], ["*"])
        clusters = self.config.own_cluster_arns
        if clusters:
            # The topics as the clusters have them (sync/topics.py). SAR: kafka:ListTopics takes the cluster,
            # kafka:DescribeTopic the topic (topic/<cluster name>/<cluster uuid>/<topic name>).
            fn.allow("MskTopicList", ["kafka:ListTopics"], clusters)
            fn.allow("MskTopicDescribe", ["kafka:DescribeTopic"], [topic_wildcard(arn) for arn in clusters])
        self._grant_mappings(fn, "assets")
        self._grant_lease(fn, holder=SCHEMA_SYNC_HOLDER)
        fn.allow(
            "PutAssetChangedEvents",
            ["events:PutEvents"],
            [self.format_arn(service="events", resource="event-bus", resource_name="default")],
            {"StringEquals": {"events:source": [TopicAssetChanged.SOURCE]}},
        )
        self._grant_source_roles(fn)
        fn.allow_invoking_itself()

    def _grant_source_roles(self, fn: LineageFunction) -> None:
        """Sources in other accounts: the function assumes each one's read-only role (stacks/source_stack.py
        creates it, trusting these two roles by ARN with the external id)."""
        roles = list(self.config.source_role_arns)
        if roles:
            fn.allow("AssumeSourceRoles", ["sts:AssumeRole"], roles)

    def _grant_lineage(self) -> None:
        fn = self.lineage
        # SAR: the lineage actions take no resource type, so only "*" grants them (DeleteLineageEvent is
        # newer than the data: UNLISTED_ACTIONS in tests/infrastructure/sar.py). DataZone checks membership.
        # Only while DataZone is a lineage target: otherwise the run makes none of these calls.
        if self.config.settings.datazone_lineage:
            fn.allow(
                "DataZoneLineage",
                [
                    "datazone:PostLineageEvent",
                    "datazone:DeleteLineageEvent",
                    "datazone:ListLineageEvents",
                    "datazone:GetLineageEvent",
                ],
                ["*"],
            )
        # SAR: GetLineageNode takes no resource type ("*" only): the drift walk reads what lies downstream
        # of an impacted table (kafka_lineage.aws.lineage_graph).
        fn.allow("DataZoneLineageGraph", ["datazone:GetLineageNode"], ["*"])
        # SAR: no resource type either: a drift names the projects subscribed to the topic's asset (GetAsset
        # for its listing, ListSubscriptions on it).
        fn.allow("DataZoneSubscribers", ["datazone:GetAsset", "datazone:ListSubscriptions"], ["*"])
        if self.config.settings.data_products:
            # ... and to the data products that hold the topic (their items: GetDataProduct).
            fn.allow("DataZoneProductSubscribers", ["datazone:GetDataProduct"], ["*"])
        # Schema versions are read by schema ARN and version number (the record's), nothing else.
        if self.config.own_registry_names:
            fn.allow("GlueSchemaVersionRead", ["glue:GetSchemaVersion"], self._registry_arns())
        databases = self.config.own_databases
        if databases:
            catalog_arns = [self.format_arn(service="glue", resource="catalog")]
            for database in databases:
                # `<catalog>/<database>` in a federated catalog: its catalog ARN too (Glue "Specifying
                # resource ARNs": catalog/s3tablescatalog/<bucket>, database/<catalog>/<db>, table/...).
                catalog, _, _ = database.rpartition("/")
                if catalog:
                    catalog_arns.append(
                        self.format_arn(service="glue", resource="catalog", resource_name=catalog)
                    )
                catalog_arns.append(
                    self.format_arn(service="glue", resource="database", resource_name=database)
                )
                catalog_arns.append(
                    self.format_arn(service="glue", resource="table", resource_name=f"{database}/*")
                )
            fn.allow("GlueCatalogRead", ["glue:GetTable", "glue:GetTables"], catalog_arns)
        # its emission state, and the last schema drift found per topic (schema-sync shows it on the asset);
        # with the Glue lineage target, that target's own state, and its posts (not in the SAR data yet;
        # Glue's guide: no resource-level permission, "Resource": "*"). glue:GetLineageNode reads every
        # node of the account: no role gets it (`kafka-lineage lineage --check-glue` reads with the
        # person's own credentials).
        self._grant_mappings(fn, *self.lineage_state_parts())
        if self.config.settings.glue_lineage:
            fn.allow("GlueLineagePost", ["glue:PostLineageEvent"], ["*"])
        self._grant_lease(fn, holder=LINEAGE_HOLDER)
        self.connector_resources = fn.allow_reading_connectors(self.config.settings.sources)
        self.delivery_resources = fn.allow_reading_delivery(self.config.settings.sources)
        fn.allow_reading_consumers(self.config.settings.sources)
        fn.allow(
            "PutSchemaDriftEvents",
            ["events:PutEvents"],
            [self.format_arn(service="events", resource="event-bus", resource_name="default")],
            {"StringEquals": {"events:source": [DRIFT_SOURCE]}},
        )
        self._grant_source_roles(fn)
        fn.allow_invoking_itself()

    def _grant_mappings(self, fn: LineageFunction, *write_under: str) -> None:
        """Read the whole MAPPING_PATH tree; write only the function's own part of it (docs/concepts.md)."""
        fn.allow(
            "MappingsRead",
            ["ssm:GetParametersByPath"],
            [self._parameter_arn(), self._parameter_arn("/*")],
        )
        fn.allow(
            "MappingsWrite",
            ["ssm:PutParameter", "ssm:DeleteParameter"],
            [self._parameter_arn(f"/{part}/*") for part in write_under],
        )

    def _grant_lease(self, fn: LineageFunction, holder: str) -> None:
        """The function's single-writer lease: generations under config/lease/{holder}, its own only.

        kafka_lineage.aws.lease lists the generations by path, creates the next one (create-if-absent)
        and prunes old ones in batches.
        """
        fn.allow(
            "StateLease",
            ["ssm:GetParametersByPath", "ssm:PutParameter", "ssm:DeleteParameters"],
            [
                self._parameter_arn(f"/{LEASE_PATH}/{holder}"),
                self._parameter_arn(f"/{LEASE_PATH}/{holder}/*"),
            ],
        )


class KafkaLineageStack(cdk.Stack):
    """The repository's own stack (app.py): nothing but the KafkaLineage construct.

    The construct's id is "Default", which CDK leaves out of logical ids: the resources keep the logical ids
    (and the outputs their names) they had when this stack held them itself, so a deployed stack updates in
    place.
    """

    def __init__(self, scope: Construct, construct_id: str, *, config: StackConfig, **kwargs: Any) -> None:
        super().__init__(
            scope,
            construct_id,
            description="kafka-lineage: Glue Schema Registry schemas as DataZone assets; Kafka->Glue lineage",
            **kwargs,
        )
        self.kafka_lineage = KafkaLineage(self, "Default", config=config)
        self.config = config
