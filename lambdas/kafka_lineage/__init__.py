"""Shared runtime code of the kafka-lineage Lambdas: settings, AWS adapters, schemas, sync and lineage."""
