"""The CDK app: one stack (KafkaLineageStack) built from the `kafkaLineage` context in cdk.json."""
