// The drawing of maps comes with their model: a user of Pathways sees PathwayMap and the readers
// as before the split (PathwayModel holds them, GL-free).
@_exported import PathwayModel
