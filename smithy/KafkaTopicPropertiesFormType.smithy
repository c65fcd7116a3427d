@documentation("The Kafka topic as its Amazon MSK cluster has it (kafka ListTopics and DescribeTopic), mirrored by kafka-lineage schema-sync. The asset describes the topic's schema; this form, the topic itself.")
structure KafkaTopicPropertiesFormType {
    @documentation("The topic's partition count, as the cluster lists it on every sync.")
    partitions: Integer

    @documentation("The topic's replication factor, as the cluster lists it on every sync.")
    replication_factor: Integer

    @documentation("The topic's retention.ms config in milliseconds; -1 means no time limit. Read when the asset is created, by every verify run and when the listing changes.")
    retention_ms: Long

    @documentation("The topic's cleanup.policy config: delete, compact, or both (compact,delete).")
    cleanup_policy: String
}
