"""Lineage emission: Kafka topic -> Glue/Iceberg table edges (and source table -> topic, topic -> S3
location, consumer group reads topic) posted to DataZone as OpenLineage runs.

run (the story: read -> plan -> lease -> replan -> drift -> apply) over: resolve (each topic's edges) ->
plan (which edges changed; pure) -> events (content, run_identity, facets, render, size_budget: the RunEvents
within DataZone's size limit; pure) -> apply (post / delete through the ports, per-edge isolation), with
drift_check (schema drift), checkpoints (the state saver thread) and result (what the run reports).
"""
