@documentation("The last schema drift kafka-lineage found for this topic's current schema version: what the version changed in fields that feed table columns, and which tables that touches. Written by schema-sync from what lineage-emission recorded; drift_status none means no drift is recorded for schema_version.")
structure KafkaSchemaDriftFormType {
    @required
    @amazon.datazone#searchable
    @documentation("breaking, warning or info: the severity of the drift to schema_version; none when no drift is recorded for it.")
    drift_status: String

    @required
    @documentation("The schema version this form describes: the asset's latest version.")
    schema_version: String

    @documentation("One line for people browsing the catalog, e.g. v1 -> v2: breaking, 1 table impacted (lakehouse/customers).")
    summary: String

    @documentation("The version the drift is measured from.")
    from_version: Integer

    @documentation("The version the drift is measured to (equals schema_version).")
    to_version: Integer

    @documentation("The impacted Glue tables, database/table, at most the first 20.")
    impacted_tables: DriftImpactedTables

    @documentation("How many tables the drift impacts (impacted_tables may list fewer).")
    impacted_table_count: Integer

    @documentation("How many fields the new version changed.")
    changed_field_count: Integer

    @documentation("When the drift was detected (ISO 8601, UTC).")
    detected_at: String

    @documentation("Identifies the drift: the same drift is announced once.")
    drift_fingerprint: String

    @documentation("Who to call: the consumer groups that read the topic (from MSK's consumer-lag metrics), at most the first 20.")
    consumer_groups: DriftConsumerGroups

    @documentation("How many consumer groups read the topic (consumer_groups may list fewer).")
    consumer_group_count: Integer

    @documentation("Who to call: the DataZone projects with an approved subscription to this asset, at most the first 20.")
    subscriber_projects: DriftSubscriberProjects

    @documentation("How many projects have an approved subscription to this asset (subscriber_projects may list fewer).")
    subscriber_count: Integer
}

list DriftImpactedTables {
    member: String
}

list DriftConsumerGroups {
    member: String
}

list DriftSubscriberProjects {
    member: String
}
