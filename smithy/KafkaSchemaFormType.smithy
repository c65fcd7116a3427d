@documentation("A Kafka topic's schema as registered in the AWS Glue Schema Registry, mirrored by kafka-lineage schema-sync.")
structure KafkaSchemaFormType {
    @required
    @amazon.datazone#searchable
    kafka_topic: String

    @required
    @documentation("The latest schema version number.")
    schema_version: String

    @required
    @amazon.datazone#searchable
    schema_arn: String

    @required
    registry_arn: String

    @required
    @amazon.datazone#searchable
    registry_name: String

    @documentation("Glue compatibility mode: NONE, DISABLED, BACKWARD, BACKWARD_ALL, FORWARD, FORWARD_ALL, FULL, FULL_ALL.")
    compatibility_mode: String

    @required
    @amazon.datazone#searchable
    @documentation("AVRO, JSON or PROTOBUF.")
    data_format: String

    @documentation("AVAILABLE, PENDING or DELETING, as the registry lists it; DELETED while the asset is kept for its subscribers after the schema was deleted.")
    schema_status: String

    @documentation("When the latest version was registered (ISO 8601, UTC).")
    latest_version_registered_at: String

    @documentation("Number of versions the registry holds for this schema.")
    version_count: Integer

    @documentation("Every version the registry holds, oldest first.")
    schema_versions: SchemaVersionHistory

    @documentation("SHA-256 of the latest version's definition.")
    definition_sha256: String

    @documentation("Number of fields found in the latest definition (nested fields as dotted paths).")
    field_count: Integer

    @documentation("Why fields could not be read from the definition, when they could not.")
    parse_warning: String
}

list SchemaVersionHistory {
    member: SchemaVersionEntry
}

structure SchemaVersionEntry {
    @required
    version_number: Integer

    @required
    @documentation("When this version was registered (ISO 8601, UTC).")
    registered_at: String

    @documentation("AVAILABLE, PENDING, FAILURE or DELETING.")
    status: String

    schema_version_id: String
}
