@documentation("Where a Kafka topic lives: its Amazon MSK cluster and the OpenLineage namespace of its topics.")
structure MskSourceReferenceFormType {
    @required
    @amazon.datazone#searchable
    cluster_arn: String

    @required
    @documentation("MSK (provisioned), MSK_SERVERLESS, or another Kafka flavour.")
    cluster_type: String

    @documentation("OpenLineage dataset namespace of the cluster's topics, kafka://host:port.")
    lineage_namespace: String
}
