"""Shared runtime code of the kafka-lineage Lambdas: settings, AWS adapters, schema parsing, sync and lineage."""
