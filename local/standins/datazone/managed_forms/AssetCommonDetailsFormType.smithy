// DataZone's managed form type amazon.datazone.AssetCommonDetailsFormType, as the DataZone stand-in serves it.
//
// Reconstructed: AWS publishes no text of this model (GetFormType on a real domain returns it). Sources:
// - Amazon SageMaker Unified Studio user guide, "Troubleshooting data lineage": GetAsset shows form
//   AssetCommonDetailsForm, typeName amazon.datazone.AssetCommonDetailsFormType, typeRevision "6",
//   content {"sourceIdentifier":"arn:aws:glue:eu-west-1:123456789012:table/testlfdb/testlftb-1"}.
// - Same guide, "The importance of the sourceIdentifier attribute to lineage nodes": a catalog asset joins
//   the lineage node whose sourceIdentifier equals this form's sourceIdentifier.
// - Amazon DataZone user guide, "Create custom asset types": AssetCommonDetailsFormType is a system form type.
// - customProperties (string -> string pairs): shown as custom key/value properties on assets; its exact
//   shape is not published.
// Both members are optional here because the documented content carries sourceIdentifier alone. Neither is
// marked searchable: nothing documents that DataZone indexes them, so a caller must not rely on it.
$version: "2"

namespace amazon.datazone

structure AssetCommonDetailsFormType {
    @documentation("The identifier of the data this asset describes; lineage nodes with the same sourceIdentifier link to the asset.")
    sourceIdentifier: String

    @documentation("Free-form key/value properties.")
    customProperties: CustomProperties
}

map CustomProperties {
    key: String
    value: String
}
