// DataZone's managed form type amazon.datazone.RelationalTableFormType, as the DataZone stand-in serves it.
//
// Reconstructed: AWS publishes no text of this model. Sources:
// - Amazon DataZone user guide, "Create custom asset types": for assets with structured data,
//   RelationalTableFormType adds technical metadata to columns, "including column names, description, and
//   data type"; SageMaker Unified Studio enables its generative-AI features for any custom asset type that
//   attaches RelationalTableFormType.
// - aws-samples code (DataZone custom asset type with lineage): asset type form "CustomTableForm" pinned to
//   amazon.datazone.RelationalTableFormType typeRevision "1"; content
//   {"tableName": ..., "columns": [{"columnName": ..., "dataType": ...}]}.
// - AWS Data Solutions Framework (DataZone MSK/Kinesis custom asset types): RelationalTableFormType content
//   {"tableName": <schema name>, "columns": [{"columnName": <field>, "dataType": <type>}]}.
// The @required markings are this stand-in's strict reading (every public use sets them); description is
// optional because no public use sets it. tableName and columnName are searchable, as the portal's
// schema search suggests (unverified).
$version: "2"

namespace amazon.datazone

structure RelationalTableFormType {
    @required
    @amazon.datazone#searchable
    tableName: String

    @required
    columns: ColumnDetailsList
}

list ColumnDetailsList {
    member: ColumnDetails
}

structure ColumnDetails {
    @required
    @amazon.datazone#searchable
    columnName: String

    @required
    dataType: String

    description: String
}
