// Package customers asks the customer service, the owner of deletes,
// whether a customer is there, for the report download.
package customers

import (
	"context"
	"net/url"

	"github.com/kycfield/kyc/pkg/principal"
)

// Customers implements report.Customers by asking the customer service
// (CUSTOMER_URL) for the customer, as a service of its tenant.
type Customers struct{ principal.Client }

// Exists implements report.Customers.
func (c Customers) Exists(ctx context.Context, orgID, env, customerID string) (bool, error) {
	return c.Client.Exists(ctx, "/api/v1/customers/"+url.PathEscape(customerID), orgID, env)
}
