"""`python -m kafka_lineage_cdk`: the command line, as the `kafka-lineage` script."""

from kafka_lineage_cdk.cli import main

main(prog_name="kafka-lineage")
