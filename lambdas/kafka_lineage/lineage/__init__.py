"""Lineage emission: Kafka topic -> Glue/Iceberg table edges posted to DataZone as OpenLineage runs.

resolve (topic -> table) -> plan (which topics changed; pure) -> events (RunEvents, size budget; pure)
-> apply (post / delete through the adapters, per-topic isolation) -> run (the one logic function).
"""
