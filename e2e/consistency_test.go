package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/pdftest"
)

// TestDeleteThenReadAgrees100Times: once DELETE has answered 200, the
// very next read of the customer's status and of its report is 404, every
// time (the status used to come from a copy that learnt of the delete
// over Kafka, and answered PENDING for about 20 ms).
func TestDeleteThenReadAgrees100Times(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "enterprise")
	_, key := P.NewKey(t, org, "test")
	for i := range 100 {
		c := create(t, key, newCustomer(nil))
		if r := P.API(t, "DELETE", "/api/v1/customers/"+c.ID, key, nil); r.Status != http.StatusOK {
			t.Fatalf("delete %d: %d %s", i, r.Status, r.Body)
		}
		if r, _ := status(t, key, c.ID); r.Status != http.StatusNotFound || r.Code() != "NOT_FOUND" {
			t.Fatalf("status right after delete %d: %d %s", i, r.Status, r.Body)
		}
		if r := P.API(t, "GET", "/api/v1/customers/"+c.ID+"/report", key, nil); r.Status != http.StatusNotFound || r.Code() != "NOT_FOUND" {
			t.Fatalf("report right after delete %d: %d %s", i, r.Status, r.Body)
		}
	}
}

// TestDeletingAVerifiedCustomerHidesEverythingAtOnce: a customer with a
// report, photos and a document is deleted; the next read of each is 404.
func TestDeletingAVerifiedCustomerHidesEverythingAtOnce(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	c := create(t, key, newCustomer(nil))
	s := waitOverall(t, key, c.ID, "VERIFIED")
	if r := waitReport(t, key, c.ID); r.Status != http.StatusOK {
		t.Fatalf("report: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "POST", "/api/v1/customers/"+c.ID+"/documents", key, docLink("bill.pdf")); r.Status != http.StatusCreated {
		t.Fatalf("document: %d %s", r.Status, r.Body)
	}
	u, err := url.Parse(s.Addresses[0].VerificationData.VerificationPhotos[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	photo := u.Path
	reads := []string{"/api/v1/customers/" + c.ID + "/report", "/api/v1/customers/" + c.ID + "/documents", photo,
		"/api/v1/verification/" + c.ID + "/status", "/api/v1/customers/" + c.ID}
	for _, path := range reads {
		if r := P.API(t, "GET", path, key, nil); r.Status != http.StatusOK {
			t.Fatalf("%s before the delete: %d %s", path, r.Status, r.Body)
		}
	}
	P.API(t, "DELETE", "/api/v1/customers/"+c.ID, key, nil)
	for _, path := range reads {
		if r := P.API(t, "GET", path, key, nil); r.Status != http.StatusNotFound {
			t.Errorf("%s right after the delete: %d %s", path, r.Status, r.Body)
		}
	}
	if r := P.API(t, "POST", "/api/v1/customers/"+c.ID+"/documents", key, docLink("late.pdf")); r.Status != http.StatusNotFound {
		t.Errorf("a document for the deleted customer: %d %s", r.Status, r.Body)
	}
}

// TestWritesShowInTheNextStatusRead: an added address and a new name are
// in the status read that follows the write, with no wait.
func TestWritesShowInTheNextStatusRead(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "live") // live: nothing moves on its own
	c := create(t, key, newCustomer(nil))
	for i := range 10 {
		r := P.API(t, "POST", "/api/v1/customers/"+c.ID+"/addresses", key, map[string]any{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos"})
		if i >= 4 {
			if r.Code() != "ADDRESS_LIMIT_EXCEEDED" {
				t.Fatalf("sixth address: %d %s", r.Status, r.Body)
			}
			break
		}
		var added customerView
		r.Decode(t, &added)
		_, s := status(t, key, c.ID)
		last := added.Addresses[len(added.Addresses)-1]
		if len(s.Addresses) != len(added.Addresses) || s.Addresses[len(s.Addresses)-1].ID != last.ID || s.Addresses[len(s.Addresses)-1].Status != "PENDING" {
			t.Fatalf("status after adding address %s: %+v", last.ID, s.Addresses)
		}
		name := "Chiamaka" + strings.Repeat("a", i)
		if r := P.API(t, "PUT", "/api/v1/customers/"+c.ID, key, map[string]any{"firstName": name}); r.Status != http.StatusOK {
			t.Fatalf("update: %d %s", r.Status, r.Body)
		}
		if _, s := status(t, key, c.ID); s.CustomerName != name+" Okafor" {
			t.Fatalf("status after renaming to %s: %q", name, s.CustomerName)
		}
	}
}

// TestALateDocumentIsInANewReportVersion: a document attached after the
// customer was verified reaches the report as a new version listing it.
func TestALateDocumentIsInANewReportVersion(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	c := create(t, key, newCustomer(nil))
	waitOverall(t, key, c.ID, "VERIFIED")
	v1 := waitReport(t, key, c.ID)
	if v1.Header.Get("X-Report-Version") != "1" || !strings.Contains(pdftest.Text(t, v1.Body), "Documents (0)") {
		t.Fatalf("version 1: %v", v1.Header)
	}
	if r := P.API(t, "POST", "/api/v1/customers/"+c.ID+"/documents", key, docLink("late-utility-bill.pdf")); r.Status != http.StatusCreated {
		t.Fatalf("attach: %d %s", r.Status, r.Body)
	}
	var v2 harness.Response
	eventually.Value(t, reportWait, "report version 2", func() (string, bool) {
		v2 = P.API(t, "GET", "/api/v1/customers/"+c.ID+"/report", key, nil)
		return fmt.Sprintf("%d version %q", v2.Status, v2.Header.Get("X-Report-Version")), v2.Header.Get("X-Report-Version") == "2"
	})
	if text := pdftest.Text(t, v2.Body); !strings.Contains(text, "Documents (1)") || !strings.Contains(text, "late-utility-bill.pdf") {
		t.Fatalf("version 2 does not list the late document:\n%s", text)
	}
}

// TestStatusTellsPollersWhenToAskAgain: a status still moving carries
// Retry-After (seconds: a live field visit is hours away, a sandbox one
// seconds), a settled one none; the body is the same either way.
func TestStatusTellsPollersWhenToAskAgain(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, live := P.NewKey(t, org, "live") // live: nothing moves on its own
	c := create(t, live, newCustomer(nil))
	if r, s := status(t, live, c.ID); r.Status != http.StatusOK || s.OverallStatus != "PENDING" || r.Header.Get("Retry-After") != "60" {
		t.Fatalf("live, pending: %d %s, Retry-After %q", r.Status, s.OverallStatus, r.Header.Get("Retry-After"))
	}
	_, sandbox := P.NewKey(t, org, "test")
	c = create(t, sandbox, newCustomer(nil))
	waitOverall(t, sandbox, c.ID, "VERIFIED")
	if r, _ := status(t, sandbox, c.ID); r.Header.Values("Retry-After") != nil {
		t.Fatalf("verified: Retry-After %q", r.Header.Values("Retry-After"))
	}
}
