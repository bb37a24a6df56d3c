package webhook

// Audited actions: what a lender's member or key did to its webhooks, as
// the organization's audit log names them (pkg/orgaudit). Reading a
// secret is one: whoever holds it can forge deliveries.
const (
	ActionCreate       = "endpoint.create"
	ActionUpdate       = "endpoint.update"
	ActionDelete       = "endpoint.delete"
	ActionRotateSecret = "endpoint.rotate_secret"
	ActionSecretRead   = "endpoint.secret_read"
	ActionTest         = "endpoint.test"
	ActionRetry        = "delivery.retry"
	ActionRecover      = "endpoint.recover"
)

// Audit is a lender's action for the repository to record in the
// organization's audit log, in the transaction of the change (or of the
// read, for a secret); who acted, and from which IP, is read from the
// request's context. Details hold ids, field names and counts: never a
// secret, and never an endpoint's URL, whose query string may carry the
// receiver's own token.
type Audit struct {
	Action  string
	Target  string
	Details map[string]any
}

// updatedFields names the members an update sends, in a fixed order.
func updatedFields(in UpdateInput) []string {
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"url", in.URL.Set}, {"events", in.Events.Set}, {"description", in.Description.Set}, {"enabled", in.Enabled.Set}} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}
