"""One of the two lineage functions: its role, log group, asynchronous-invocation settings and error alarm."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_datazone as datazone
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_logs as logs
from constructs import Construct

from kafka_lineage.config import Source
from kafka_lineage.model.metrics import ERRORS

from .bundling import ARCHITECTURE, RUNTIME, function_code
from .datazone_types import ignore_membership_identity_lint
from .resources import SharedResources

# Asynchronous invocations (every trigger here is asynchronous): Lambda retries a failed run twice, and
# gives up on events older than six hours; then the event goes to the on-failure queue.
ASYNC_RETRY_ATTEMPTS = 2
ASYNC_MAX_EVENT_AGE = cdk.Duration.hours(6)
# A connector-name glob IAM can express as is: its `*` and `?` mean what fnmatch's do; `[...]` has no match.
_IAM_GLOB = re.compile(r"[^\[\]]+")
# What the functions need in the project: create and revise assets, publish, post lineage.
MEMBER_DESIGNATION = "PROJECT_CONTRIBUTOR"


def connector_resource_names(sources: Sequence[Source]) -> list[str]:
    """`connector/<name>/*` resource names (SAR: connector/${ConnectorName}/${UUID}) covering every connector
    a source may read: its include globs when IAM can express them all, else every connector."""
    names: set[str] = set()
    for source in sources:
        if source.connectors == "off":
            continue
        include = source.connectors.include
        if include and all(_IAM_GLOB.fullmatch(glob) for glob in include):
            names.update(f"connector/{glob}/*" for glob in include)
        else:
            names.add("connector/*/*")
    if "connector/*/*" in names:
        return ["connector/*/*"]
    return sorted(names)


@dataclass(frozen=True)
class FunctionSpec:
    """One function: its handler, environment, size and limits, its role's fixed name (None: generated),
    and whether it is a member of the project (subscription-grants writes no asset: it is not)."""

    handler: str
    description: str
    environment: Mapping[str, str]
    memory_mb: int
    timeout_seconds: int
    reserved_concurrency: int | None = None
    role_name: str | None = None
    member: bool = True


class LineageFunction(Construct):
    """A Python function on the shared code asset and dependency layer, least-privilege role included."""

    def __init__(
        self, scope: Construct, construct_id: str, spec: FunctionSpec, shared: SharedResources
    ) -> None:
        super().__init__(scope, construct_id)
        description = spec.description
        self.log_group = logs.LogGroup(self, "Logs", retention=shared.log_retention)
        self.role = iam.Role(
            self,
            "Role",
            role_name=spec.role_name,
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"kafka-lineage {construct_id}: {description}",
        )
        # Only this function's log group (no AWSLambdaBasicExecutionRole with its logs:* on every group).
        self.log_group.grant_write(self.role)
        self.function = lambda_.Function(
            self,
            "Function",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=spec.handler,
            code=function_code(),
            layers=[shared.layer],
            role=self.role,
            description=description,
            environment=dict(spec.environment),
            memory_size=spec.memory_mb,
            timeout=cdk.Duration.seconds(spec.timeout_seconds),
            reserved_concurrent_executions=spec.reserved_concurrency,
            # CDK grants X-Ray's PutTraceSegments/PutTelemetryRecords on "*": SAR, no resource type.
            tracing=lambda_.Tracing.ACTIVE,
            log_group=self.log_group,
            logging_format=lambda_.LoggingFormat.JSON,
            application_log_level_v2=lambda_.ApplicationLogLevel.INFO,
            system_log_level_v2=lambda_.SystemLogLevel.WARN,
            retry_attempts=ASYNC_RETRY_ATTEMPTS,
            max_event_age=ASYNC_MAX_EVENT_AGE,
            on_failure=destinations.SqsDestination(shared.failure_queue),
        )
        # DataZone authorises writes by project membership as well as by IAM. Under projectMembership
        # "manual" a project owner adds the role instead (docs/governed-domains.md).
        self.membership: datazone.CfnProjectMembership | None = None
        if shared.create_membership and spec.member:
            self.membership = datazone.CfnProjectMembership(
                self,
                "ProjectMembership",
                designation=MEMBER_DESIGNATION,
                domain_identifier=shared.domain_id,
                project_identifier=shared.project_id,
                member=datazone.CfnProjectMembership.MemberProperty(user_identifier=self.role.role_arn),
            )
            ignore_membership_identity_lint(self.membership)
        if shared.kms_key_arn is not None:
            # A domain with a customer managed key: DataZone uses the key on the caller's behalf for the
            # calls that read or write the domain's data (docs/governed-domains.md, "Keys"). That one key
            # only; SAR: both actions take the `key` resource type.
            self.allow("DomainKey", ["kms:Decrypt", "kms:GenerateDataKey"], [shared.kms_key_arn])
        self.errors_alarm = cloudwatch.Alarm(
            self,
            ERRORS.construct_id,
            alarm_description=f"{construct_id} {ERRORS.description}",
            metric=self.function.metric_errors(period=cdk.Duration.minutes(5), statistic="Sum"),
            threshold=1,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    def allow_invoking_itself(self) -> None:
        """Let the function hand unfinished work to a follow-up invocation of itself (asynchronous).

        In a policy of its own: the role's default policy is created before the function, so naming the
        function's ARN there would be a circular dependency. The follow-up only happens at run time, after
        the whole stack exists.
        """
        self.self_invoke_policy = iam.Policy(
            self,
            "InvokeSelfPolicy",
            roles=[self.role],
            statements=[
                iam.PolicyStatement(
                    sid="InvokeItself",
                    actions=["lambda:InvokeFunction"],
                    resources=[self.function.function_arn],
                )
            ],
        )

    def allow_reading_connectors(self, sources: Sequence[Source]) -> list[str]:
        """MSK Connect reads for lineage: list (and the clusters' brokers, to tell whose a connector is), then
        describe the connectors the sources read. Returns the connector resource names granted."""
        names = connector_resource_names(sources)
        if not names:
            return []
        # SAR: kafkaconnect:ListConnectors and kafka:GetBootstrapBrokers take no resource type ("*" only).
        self.allow("MskConnectList", ["kafkaconnect:ListConnectors", "kafka:GetBootstrapBrokers"], ["*"])
        stack = cdk.Stack.of(self)
        self.allow(
            "MskConnectDescribe",
            ["kafkaconnect:DescribeConnector"],
            [
                stack.format_arn(
                    service="kafkaconnect",
                    resource="connector",
                    resource_name=name.removeprefix("connector/"),
                    arn_format=cdk.ArnFormat.SLASH_RESOURCE_NAME,
                )
                for name in names
            ],
        )
        return names

    def allow_reading_delivery(self, sources: Sequence[Source]) -> list[tuple[str, str]]:
        """MSK Data Delivery channels and Firehose streams read for lineage, and the S3 Tables catalogs their
        tables are in. Returns the wildcard resources granted (for cdk-nag's acknowledgments): (service,
        resource) in this stack's account and Region, or ("", ARN) for a literal ARN."""
        stack = cdk.Stack.of(self)
        wildcards: list[tuple[str, str]] = []
        channel_clusters = sorted({s.cluster_arn for s in sources if s.channels != "off" and not s.role_arn})
        if channel_clusters:
            # MSK developer guide, "Channel lifecycle management permissions": ListChannels on the cluster
            # ARN, DescribeChannel on the channel ARN (channel/<cluster name>/<cluster uuid>/<channel name>).
            self.allow("MskChannelList", ["kafka:ListChannels"], channel_clusters)
            channels = [arn.replace(":cluster/", ":channel/", 1) + "/*" for arn in channel_clusters]
            self.allow("MskChannelDescribe", ["kafka:DescribeChannel"], channels)
            wildcards += [("", arn) for arn in channels]
        if any(s.firehose != "off" and not s.role_arn for s in sources):
            # SAR: ListDeliveryStreams takes no resource type; DescribeDeliveryStream takes deliverystream.
            self.allow("FirehoseList", ["firehose:ListDeliveryStreams"], ["*"])
            streams = stack.format_arn(
                service="firehose",
                resource="deliverystream",
                resource_name="*",
                arn_format=cdk.ArnFormat.SLASH_RESOURCE_NAME,
            )
            self.allow("FirehoseDescribe", ["firehose:DescribeDeliveryStream"], [streams])
            wildcards.append(("firehose", "deliverystream/*"))
        if channel_clusters or any(s.firehose != "off" and not s.role_arn for s in sources):
            # Their tables live in S3 Tables' federated catalogs, known only at run time: read the metadata of
            # any. SAR: GetTable/GetTables take rootcatalog, catalog, database and table; Glue's "Specifying
            # resource ARNs" gives catalog/s3tablescatalog/<bucket>, database/... and table/... below it.
            below = (("catalog", "*"), ("database", "*/*"), ("table", "*/*/*"))
            tables = [
                stack.format_arn(service="glue", resource="catalog"),
                stack.format_arn(service="glue", resource="catalog", resource_name="s3tablescatalog"),
                *(
                    stack.format_arn(service="glue", resource=kind, resource_name=f"s3tablescatalog/{rest}")
                    for kind, rest in below
                ),
            ]
            self.allow("S3TablesCatalogRead", ["glue:GetTable", "glue:GetTables"], tables)
            wildcards += [("glue", f"{kind}/s3tablescatalog/{rest}") for kind, rest in below]
        return wildcards

    def allow_reading_consumers(self, sources: Sequence[Source]) -> None:
        """The consumer groups of the sources read in this account: MSK's consumer-lag metrics, listed with
        cloudwatch:ListMetrics (SAR: no resource type, so only "*" grants it)."""
        if any(s.consumers != "off" and not s.role_arn for s in sources):
            self.allow("ConsumerGroupsList", ["cloudwatch:ListMetrics"], ["*"])

    def allow(
        self,
        sid: str,
        actions: list[str],
        resources: list[str],
        conditions: Mapping[str, Mapping[str, object]] | None = None,
    ) -> None:
        """Add one explicitly scoped statement to the role."""
        self.role.add_to_policy(
            iam.PolicyStatement(
                sid=sid,
                actions=actions,
                resources=resources,
                conditions={key: dict(value) for key, value in conditions.items()} if conditions else None,
            )
        )
