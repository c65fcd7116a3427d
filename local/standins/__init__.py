"""Strict local stand-ins for the AWS APIs moto lacks (DataZone, Glue schema listings, Kafka brokers),
served over the real wire protocol in front of moto."""
