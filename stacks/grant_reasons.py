"""Why each IAM grant of the stacks exists: by the statement's Sid, and for the statements CDK writes itself
(no Sid), by their actions.

docs/permissions.md is generated from the synthesized templates and these reasons (docs/gen_permissions.py,
`make docs-gen`); a statement with neither a reason by Sid nor by actions fails it, and a reason no
synthesized statement uses fails tests/infrastructure/test_permissions_page.py. Where the SAR (the IAM Service
Authorization Reference) gives an action no resource type, only `*` grants it.
"""

from __future__ import annotations

BY_SID: dict[str, str] = {
    "DataZoneAssets": (
        "Mirror each schema as an asset: read the asset type and the managed form types' models (only the "
        "members they declare are written), create, revise, find (Search), delete and publish assets and "
        "read their listings; in governed domains, hold a deletion while the listing has approved "
        "subscriptions (ListSubscriptions) and name the domain rule that refused a publish (GetProject, "
        "ListRules). The SAR gives these actions no resource type, so only `*` grants them; DataZone then "
        "authorises each call by the role's project membership (contributor)."
    ),
    "DataZoneDataProducts": (
        "Keep the `dataProducts` setting's data products: create, revise, read and delete the project's "
        "products (their Search, publishing and ListSubscriptions are granted with the assets). The SAR "
        "gives these actions no resource type, so only `*` grants them; DataZone then authorises each call "
        "by the role's project membership."
    ),
    "DataZoneProductSubscribers": (
        "Name who to call in a drift announcement: read the data products that hold the topic (their items); "
        "the subscriptions to them are read with the asset's. The SAR gives GetDataProduct no resource type, "
        "so only `*` grants it."
    ),
    "GlueSchemaRegistryRead": (
        "List and read the configured registries' schemas and versions: the registries and their schemas "
        "only."
    ),
    "MskBootstrapBrokers": (
        "Read a cluster's bootstrap brokers: to derive a source's default namespace (`kafka://<brokers>`) "
        "when it sets none and, through a source account's role, to tell whose a connector is. The SAR gives "
        "these actions no resource type, so only `*` grants them."
    ),
    "MappingsRead": "Read the whole `mappingPath` tree: the mappings and the functions' state.",
    "MappingsWrite": (
        "Write only the function's own part of `mappingPath`: `assets/` (schema-sync), or `lineage/` and "
        "`drift/` (lineage-emission)."
    ),
    "StateLease": (
        "The function's single-writer lease under `config/lease/<function>/`: list its generations, create "
        "the next one, prune old ones. Its own lease only."
    ),
    "PutAssetChangedEvents": (
        'Put "Topic Asset Changed" on the default bus, under its own event source only (the condition), so '
        "lineage follows each asset change."
    ),
    "InvokeItself": (
        "Hand unfinished work to a follow-up invocation of the same function (asynchronous); its own ARN "
        "only."
    ),
    "AssumeSourceRoles": (
        "Read a source in another account through that account's read-only role (the source stack creates "
        "it, trusting these two roles with the external id): those roles only."
    ),
    "DomainKey": (
        "A domain with a customer managed key: DataZone uses the key on the caller's behalf for the calls "
        "that read or write the domain's data. That one key only."
    ),
    "DataZoneLineage": (
        'With `lineageTargets` holding "datazone" (the default): post the lineage runs, find a lost '
        "answer again by runId, and delete replaced or retracted runs "
        "(checked with GetLineageEvent until processed). The SAR gives these actions no resource type, so "
        "only `*` grants them; DataZone then authorises each call by the role's project membership."
    ),
    "DataZoneLineageGraph": (
        "The schema-drift walk reads what lies downstream of an impacted table. The SAR gives these actions "
        "no resource type, so only `*` grants them."
    ),
    "GlueLineagePost": (
        "With `lineageTargets` holding \"glue\": post each edge's run to the Glue Data Catalog's lineage "
        "graph of this account. Glue's guide gives glue:PostLineageEvent no resource-level permission, so "
        "only `*` grants it; it writes lineage only (glue:GetLineageNode, which reads every node of the "
        "account, is granted to no role)."
    ),
    "GlueSchemaVersionRead": (
        "Read the schema version a topic's lineage describes: the configured registries only."
    ),
    "GlueCatalogRead": (
        "Read the mapped Glue tables (their columns feed column lineage): the catalog, and the databases "
        "named by table rules, mappings and `extraDatabases` with their tables."
    ),
    "DataZoneSubscribers": (
        "Name who to call in a drift announcement: read the topic's asset (its listing) and the approved "
        "subscriptions to it (ListSubscriptions). The SAR gives these actions no resource type, so only `*` "
        "grants them; DataZone then authorises each call by the role's project membership."
    ),
    "ConsumerGroupsList": (
        "List the consumer groups that read each source cluster's topics: the consumer-lag metrics MSK "
        "publishes to CloudWatch (namespace `AWS/Kafka`, one ListMetrics listing per cluster and run). The "
        "SAR gives ListMetrics no resource type, so only `*` grants it; it reads metric names and "
        "dimensions, no data points."
    ),
    "MskTopicList": (
        "List the source clusters' topics (ListTopics): each topic asset's partitions and replication "
        "factor, and the schemas without a topic and topics without a schema the sync reports. The clusters "
        "only (the SAR's resource type for ListTopics is `cluster`)."
    ),
    "MskTopicDescribe": (
        "Read a topic's retention and cleanup policy (DescribeTopic) when its asset is created, on `verify`, "
        "or when the listing changed: those clusters' topics only (resource type `topic`)."
    ),
    "MskConnectList": (
        "Read the MSK Connect connectors that decide which topic feeds which table: list them, and the "
        "clusters' bootstrap brokers to tell whose a connector is. The SAR gives these actions no resource "
        "type, so only `*` grants them."
    ),
    "MskConnectDescribe": "Describe the connectors of the configured clusters.",
    "MskChannelList": (
        "List the MSK Data Delivery channels of the configured clusters (delivery-path lineage)."
    ),
    "MskChannelDescribe": "Describe those clusters' channels: where each writes its topics.",
    "FirehoseList": (
        "List the Firehose streams that read from MSK (delivery-path lineage). The SAR gives these actions "
        "no resource type, so only `*` grants them."
    ),
    "FirehoseDescribe": "Describe the account's Firehose streams: their MSK source and their destination.",
    "S3TablesCatalogRead": (
        "Read the tables channels and streams write to, in S3 Tables' federated catalogs (known only at run "
        "time): the `s3tablescatalog` catalogs' metadata."
    ),
    "PutSchemaDriftEvents": (
        'Put "Schema Drift Detected" on the default bus, under its own event source only (the condition), '
        "for schema-sync and the alarm topic."
    ),
    "DataZoneAssetType": (
        "Create and read the asset type and its form types, resolving the managed form types' revisions; "
        "delete the asset type on stack deletion under `assetTypeRemovalPolicy` `destroy`, or to replace one "
        "no asset uses when DataZone refuses a new revision. The SAR gives these actions no resource type, "
        "so only `*` grants them; DataZone then authorises each call by the role's project membership "
        "(owner)."
    ),
    "DataZoneGovernanceReadDomain": (
        "The deploy's governance check reads the domain (its key against `domainKmsKeyArn`): that domain "
        "only."
    ),
    "DataZoneGovernanceRead": (
        "The deploy's governance check reads the project, its domain units' grants and the project's "
        "members, and stops naming what is missing. The SAR gives these actions no resource type, so only "
        "`*` grants them."
    ),
    "DataZoneSubscriptionGrants": (
        "subscription-grants: read each grant, its listing, subscription target (the roles) and environment "
        "(the account), list the domain's grants for the reconciling run, and report each asset's status "
        "(UpdateSubscriptionGrantStatus). The SAR gives these actions no resource type, so only `*` grants "
        "them; every call names the configured domain."
    ),
    "ConsumerRoleRead": (
        "Read a consumer role before writing it: the role, its inline and attached policies. Only the roles "
        "`access.consumerRoles` names (its patterns are the resources)."
    ),
    "ConsumerRoleInlinePolicy": (
        "Write and delete the one inline policy (`KafkaLineageAccess-<token>`) that holds a role's granted "
        "access: only the roles `access.consumerRoles` names."
    ),
    "ConsumerRoleAttach": (
        "Attach and detach the managed policies that hold the access an inline policy has no room for: only "
        "on the roles `access.consumerRoles` names, and only our own policies (the `iam:PolicyARN` "
        "condition), so no other policy, AdministratorAccess say, can ever be attached."
    ),
    "AccessPolicies": (
        "Create, revise (IAM keeps five versions), read, list the roles of, and delete our own managed "
        "policies: the path "
        "`/kafka-lineage/` and this stack's name prefix `KafkaLineageAccess-<token>-` only (a consumer "
        "account's role: every stack's, `KafkaLineageAccess-`)."
    ),
    "AccessHoldersList": (
        "List the account's roles and this path's managed policies, to find the roles that still hold this "
        "stack's access when no grant names them any more (a grant deleted, its listing or target gone), so "
        "the reconciling run can remove it. The SAR gives ListRoles and ListPolicies no resource type, so "
        "only `*` grants them; they read names, never documents."
    ),
    "ConsumerRolePoliciesRead": (
        "Read the documents of a consumer role's permissions boundary and of its other attached policies, "
        "to refuse a grant that a Deny would void (SageMaker Unified Studio's project roles). A boundary can "
        "be any customer or AWS managed policy, and IAM cannot limit a read to the policies attached to some "
        "role: reads only, the writes above stay scoped."
    ),
    "ClusterPolicies": (
        "A consumer in another account needs the cluster's resource policy too: read the cluster's type "
        "(Serverless has no policy) and read, merge into and write its cluster policy. The sources' clusters "
        "in this account only, and only when `access.consumerRoles` names another account."
    ),
    "AssumeSourceRolesForClusterPolicies": (
        "Write the cluster policy of a source account's cluster through that source's role (`roleArn`, with "
        "its external id; the source stack allows it with `grantAccess`): those roles only, and only when "
        "`access.consumerRoles` names an account other than the cluster's."
    ),
    "MskClusterPolicies": (
        "With `grantAccess`: read the type of the clusters `clusters` lists and read, merge into and write "
        "their cluster policies, for the governance stack's subscription-grants function (a consumer in "
        "another account needs the cluster's resource policy too). Those clusters only."
    ),
    "AssumeConsumerAccountRoles": (
        "Write IAM in a consumer account through its role (`access.consumerAccountRole`, the "
        "KafkaLineageConsumer stack's), in the accounts `access.consumerRoles` names, with the external id."
    ),
    "RoleLeases": (
        "One writer per consumer role: the per-role leases under `config/lease/subscription-grants-<hash>/`. "
        "List a lease's generations, create the next one, prune old ones; those leases only."
    ),
}

# Statements CDK writes for a construct's own needs, without a Sid: by their (sorted) actions.
BY_ACTIONS: dict[tuple[str, ...], str] = {
    ("logs:CreateLogStream", "logs:PutLogEvents"): "Write the function's logs: its own log group only.",
    ("xray:PutTelemetryRecords", "xray:PutTraceSegments"): (
        "Active X-Ray tracing, one trace per invocation (CDK's grant). The SAR gives these actions no "
        "resource type, so only `*` grants them."
    ),
    ("sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"): (
        "Send an asynchronous invocation that gave up after its retries to the encrypted failure queue "
        "(Lambda's on-failure destination): that queue only."
    ),
    ("lambda:InvokeFunction",): (
        "CDK's custom-resource provider calls the asset-type handler: that function only."
    ),
    ("lambda:GetFunction",): (
        "CDK's custom-resource provider checks the handler is ready: that function only."
    ),
    ("events:PutEvents",): (
        "Forward this account's Glue Schema Registry changes to the governance account's default bus (the "
        "event rule's target role): that bus only."
    ),
}
