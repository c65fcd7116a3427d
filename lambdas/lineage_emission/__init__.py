"""The lineage-emission Lambda: Kafka topic -> Glue table lineage posted to Amazon DataZone."""
