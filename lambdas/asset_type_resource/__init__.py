"""The CloudFormation custom resource that creates the KafkaTopicAssetType DataZone asset type."""
