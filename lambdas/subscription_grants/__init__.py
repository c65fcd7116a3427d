"""The subscription-grants Lambda: DataZone subscription grants on Kafka topic assets, as IAM access."""
