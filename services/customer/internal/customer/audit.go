package customer

// Audited actions: what a lender's member or key did, as the
// organization's audit log names it (pkg/orgaudit). The import job's
// own creations are not actions: import.start is.
const (
	ActionCreate       = "customer.create"
	ActionUpdate       = "customer.update"
	ActionDelete       = "customer.delete"
	ActionAddressAdd   = "address.add"
	ActionImportCreate = "import.create"
	ActionImportStart  = "import.start"
)

// Audit is a lender's action to record in the organization's audit log,
// in the transaction of the change it describes; the store reads who
// acted, and from which IP, from the request's context. Details never
// carry BVN, NIN or other personal values: ids, counts and field names
// only.
type Audit struct {
	Action  string
	Target  string
	Details map[string]any
}
