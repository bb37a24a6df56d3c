package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/pdftest"
)

// dataKeys are the member names of a success envelope's data, sorted.
func dataKeys(t *testing.T, r harness.Response) []string {
	t.Helper()
	var data map[string]json.RawMessage
	r.Decode(t, &data)
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// A write-only key (kyc:write without kyc:read) cannot read a customer
// through its writes: create, update, address and document appends
// answer a receipt, never the record, so a PUT that changes nothing is no
// way round the 403 of GET. A read+write key still gets the record.
func TestWriteOnlyKeyGetsReceiptsNotRecords(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, writeOnly := P.NewKey(t, org, "test", "kyc:write")
	_, readWrite := P.NewKey(t, org, "test")
	email := "ngozi." + uuid.NewString()[:8] + "@example.com"
	body := newCustomer(map[string]any{"email": email, "occupation": "Trader", "bvn": "22212345678"})
	personal := []string{body["phone"].(string), email, "Ngozi", "Okafor", "Trader", "Adeola Odeku", "***5678"}
	noPersonalField := func(what string, r harness.Response) {
		t.Helper()
		for _, p := range personal {
			if strings.Contains(string(r.Body), p) {
				t.Errorf("%s shows %q to a write-only key: %s", what, p, r.Body)
			}
		}
	}

	r := P.API(t, "POST", "/api/v1/customers", writeOnly, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if got := dataKeys(t, r); !slices.Equal(got, []string{"id", "status", "updatedAt"}) {
		t.Errorf("create answers %v: %s", got, r.Body)
	}
	noPersonalField("create", r)
	var c struct{ ID, Status string }
	r.Decode(t, &c)
	if !strings.HasPrefix(c.ID, "cus_") || c.Status != "PENDING" {
		t.Fatalf("receipt: %s", r.Body)
	}

	// The probe of the issue: a PUT that changes nothing.
	r = P.API(t, "PUT", "/api/v1/customers/"+c.ID, writeOnly, map[string]any{"occupation": "Trader"})
	if r.Status != http.StatusOK || !slices.Equal(dataKeys(t, r), []string{"id", "status", "updatedAt"}) {
		t.Fatalf("no-op PUT: %d %s", r.Status, r.Body)
	}
	noPersonalField("PUT", r)

	r = P.API(t, "POST", "/api/v1/customers/"+c.ID+"/addresses", writeOnly,
		map[string]any{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos"})
	if r.Status != http.StatusCreated || !slices.Equal(dataKeys(t, r), []string{"addressId", "id", "status", "updatedAt"}) {
		t.Fatalf("address append: %d %s", r.Status, r.Body)
	}
	noPersonalField("address append", r)
	if strings.Contains(string(r.Body), "Allen Avenue") {
		t.Errorf("address append echoes the address: %s", r.Body)
	}

	waitDocumentsReady(t, readWrite, c.ID)
	r = P.API(t, "POST", "/api/v1/customers/"+c.ID+"/documents", writeOnly, map[string]any{"fileName": "bill-ngozi.pdf",
		"fileUrl": "https://files.example.com/bill-ngozi.pdf", "fileType": "application/pdf", "fileSize": 1024, "documentType": "UTILITY_BILL"})
	if r.Status != http.StatusCreated || !slices.Equal(dataKeys(t, r), []string{"customerId", "id", "uploadedAt"}) ||
		strings.Contains(string(r.Body), "bill-ngozi") {
		t.Fatalf("document append: %d %s", r.Status, r.Body)
	}

	// A key that may read sees what it wrote.
	r = P.API(t, "PUT", "/api/v1/customers/"+c.ID, readWrite, map[string]any{"occupation": "Tailor"})
	var full customerView
	r.Decode(t, &full)
	if r.Status != http.StatusOK || full.FirstName != "Ngozi" || full.Phone != body["phone"] || len(full.Addresses) != 2 ||
		!strings.Contains(string(r.Body), email) {
		t.Fatalf("read+write PUT: %d %s", r.Status, r.Body)
	}

	// Nor through a replay of a read+write key's idempotent request.
	idem := uuid.NewString()
	other := newCustomer(map[string]any{"email": "ada." + uuid.NewString()[:8] + "@example.com"})
	first := P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/customers", Key: readWrite, Body: other,
		Header: map[string]string{"Idempotency-Key": idem}})
	replay := P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/customers", Key: writeOnly, Body: other,
		Header: map[string]string{"Idempotency-Key": idem}})
	if first.Status != http.StatusCreated || replay.Header.Get("Idempotent-Replayed") != "" || strings.Contains(string(replay.Body), other["phone"].(string)) {
		t.Fatalf("write-only replay of a read+write key's create: %d %s", replay.Status, replay.Body)
	}

	r = P.API(t, "DELETE", "/api/v1/customers/"+c.ID, writeOnly, nil)
	if r.Status != http.StatusOK || !slices.Equal(dataKeys(t, r), []string{"deleted", "id"}) {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
}

// waitDocumentsReady waits until the document service knows customerID.
func waitDocumentsReady(t *testing.T, key, customerID string) {
	t.Helper()
	eventually.True(t, patience, "the document service learns of "+customerID, func() bool {
		return P.API(t, "GET", "/api/v1/customers/"+customerID+"/documents", key, nil).Status == http.StatusOK
	})
}

// Every text field of every API refuses NUL and control characters
// (but line breaks and tabs) with a 400 VALIDATION_ERROR naming the
// field: lenders' customers, addresses, documents, webhooks and
// branding; the dashboard; the operators' admin APIs; the agents'.
func TestControlCharactersAreRefusedInEveryAPI(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "enterprise")
	_, key := P.NewKey(t, org, "test")
	c := create(t, key, newCustomer(nil))
	// Baruten: no test puts a live address there, so this agent gets no task.
	agent := newAgent(t, "Tunde Bakare", []string{"Kwara"}, []string{"Baruten"})
	b := newBrowser(t)
	b.signUp()
	type call struct {
		name  string
		do    func(body any) harness.Response
		body  map[string]any
		field string
	}
	api := func(method, path string) func(any) harness.Response {
		return func(body any) harness.Response { return P.API(t, method, path, key, body) }
	}
	direct := func(base, method, path string) func(any) harness.Response {
		return func(body any) harness.Response {
			return P.Do(t, harness.Request{Method: method, URL: base + path, Key: harness.AdminToken, Body: body})
		}
	}
	addr := func(field, v string) map[string]any {
		a := map[string]any{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos"}
		a[field] = v
		return a
	}
	for _, tc := range []call{
		{"customer name", api("POST", "/api/v1/customers"), newCustomer(map[string]any{"lastName": "Oka\x00for"}), "lastName"},
		{"customer loanId", api("POST", "/api/v1/customers"), newCustomer(map[string]any{"loanId": "LN-1\x1b[2J"}), "loanId"},
		{"address notes", api("POST", "/api/v1/customers"),
			newCustomer(map[string]any{"addresses": []map[string]any{addr("notes", "ring\a twice")}}), "addresses[0].notes"},
		{"relogReason", api("POST", "/api/v1/customers"), newCustomer(map[string]any{"relogReason": "new loan\x00"}), "relogReason"},
		{"update occupation", api("PUT", "/api/v1/customers/"+c.ID), map[string]any{"occupation": "Trader\u0085"}, "occupation"},
		{"appended address landmark", api("POST", "/api/v1/customers/"+c.ID+"/addresses"), addr("landmark", "over\rwritten"), "landmark"},
		{"document file name", api("POST", "/api/v1/customers/"+c.ID+"/documents"), map[string]any{"fileName": "bill\x1b[31m.pdf",
			"fileUrl": "https://files.example.com/bill.pdf", "documentType": "UTILITY_BILL"}, "fileName"},
		{"webhook description", api("POST", "/api/v1/webhooks"), map[string]any{"url": "https://hooks.example.com/kyc",
			"description": "ops \x1b]0;pwned\a"}, "description"},
		{"report branding", api("PUT", "/api/v1/reports/branding"), map[string]any{"displayName": "Zenith\x00"}, "displayName"},
		{"dashboard key name", func(body any) harness.Response { return b.call("POST", "/dashboard/v1/keys", body) },
			map[string]any{"environment": "test", "scopes": []string{"kyc:read"}, "name": "back\x08end"}, "name"},
		{"dashboard sign-up", func(body any) harness.Response { return newBrowser(t).call("POST", "/dashboard/v1/signup", body) },
			map[string]any{"organizationName": "Ade\x07 Loans", "email": "ade" + uuid.NewString()[:8] + "@lender.ng", "password": "correct horse battery"},
			"organizationName"},
		{"admin organization name", direct(P.AuthBillingURL, "POST", "/admin/v1/orgs"), map[string]any{"name": "Org\x00", "plan": "growth"}, "name"},
		{"admin agent name", direct(P.URLs["verification"], "POST", "/admin/v1/agents"),
			map[string]any{"name": "Ada\x1b[2J", "phone": phone(), "states": []string{"Lagos"}}, "name"},
		{"agent notes", func(body any) harness.Response {
			return agent.call("POST", "/tasks/adr_0/complete", body, uuid.NewString())
		},
			map[string]any{"outcome": "REJECTED", "reason": "OTHER", "notes": "gate\x00", "latitude": 8.49, "longitude": 4.54, "accuracy": 9}, "notes"},
		{"agent resident", func(body any) harness.Response {
			return agent.call("POST", "/tasks/adr_0/complete", body, uuid.NewString())
		},
			map[string]any{"outcome": "VERIFIED", "verifiedAddress": "7 Taiwo Road", "latitude": 8.49, "longitude": 4.54, "accuracy": 9,
				"resident": map[string]any{"name": "Chidi\u009b2J"}}, "resident.name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.do(tc.body)
			if r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" || !hasDetail(r, tc.field) {
				t.Fatalf("%d %s, want 400 VALIDATION_ERROR on %s", r.Status, r.Body, tc.field)
			}
		})
	}
	// Line breaks and tabs are text: an address note keeps them.
	r := P.API(t, "POST", "/api/v1/customers/"+c.ID+"/addresses", key, addr("notes", "Blue gate\r\nAsk for\tMama Ngozi"))
	if r.Status != http.StatusCreated || !strings.Contains(string(r.Body), `Blue gate\r\nAsk for\tMama Ngozi`) {
		t.Fatalf("notes with line breaks: %d %s", r.Status, r.Body)
	}
}

func hasDetail(r harness.Response, field string) bool {
	_, ok := details(r)[field]
	return ok
}

// Paging parameters are bounded before any arithmetic: a page or limit
// that would overflow is a 400 naming it, in every list.
func TestHugePagesAndLimitsAre400(t *testing.T) {
	t.Parallel()
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	r := P.API(t, "POST", "/api/v1/webhooks", key, map[string]any{"url": "https://hooks.example.com/kyc"})
	var e struct{ ID string }
	r.Decode(t, &e)
	for _, tc := range []struct{ path, field string }{
		{"/api/v1/customers?page=9223372036854775807", "page"},
		{"/api/v1/customers?page=9223372036854775808", "page"},
		{"/api/v1/customers?limit=9223372036854775807", "limit"},
		{"/api/v1/customers?page=-9223372036854775808", "page"},
		{"/api/v1/customers?search=ngozi&page=4611686018427387904&limit=100", "page"},
		{"/api/v1/webhooks/" + e.ID + "/deliveries?limit=9223372036854775807", "limit"},
		{"/api/v1/webhooks/" + e.ID + "/deliveries?limit=-1", "limit"},
	} {
		r := P.API(t, "GET", tc.path, key, nil)
		if r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" || !hasDetail(r, tc.field) {
			t.Errorf("GET %s: %d %s, want 400 on %s", tc.path, r.Status, r.Body, tc.field)
		}
	}
}

// The duplicate rule cannot be dodged with spellings a person reads as
// the same: a loanId with a zero-width space, a fullwidth hyphen or in
// lower case, an email with invisible characters or in capitals is 400
// DUPLICATE_CUSTOMER naming the field, on create and on update. A +tag
// or a dot makes another address (Stripe's rule), so no duplicate.
func TestDuplicateKeysAreNormalised(t *testing.T) {
	t.Parallel()
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	ref := strings.ToUpper(uuid.NewString()[:6])
	loan, email := "LN-"+ref+"-0042", "ngozi.okafor@example.com"
	first := create(t, key, newCustomer(map[string]any{"loanId": loan, "email": email}))
	duplicate := func(name string, body map[string]any, field string) {
		t.Helper()
		for _, r := range []harness.Response{
			P.API(t, "POST", "/api/v1/customers", key, newCustomer(body)),
			P.API(t, "PUT", "/api/v1/customers/"+create(t, key, newCustomer(nil)).ID, key, body),
		} {
			d := details(r)
			if r.Status != http.StatusBadRequest || r.Code() != "DUPLICATE_CUSTOMER" || d[field] == "" {
				t.Errorf("%s: %d %s, want 400 DUPLICATE_CUSTOMER on %s", name, r.Status, r.Body, field)
			}
			if !strings.Contains(string(r.Body), first.ID) {
				t.Errorf("%s: the existing customer is not named: %s", name, r.Body)
			}
		}
	}
	duplicate("loanId with a zero-width space", map[string]any{"loanId": "LN-" + ref + "\u200b-0042"}, "loanId")
	duplicate("loanId with a fullwidth hyphen", map[string]any{"loanId": "LN\uff0d" + ref + "\uff0d0042"}, "loanId")
	duplicate("loanId in lower case", map[string]any{"loanId": strings.ToLower(loan)}, "loanId")
	duplicate("loanId with an en dash and fullwidth letters", map[string]any{"loanId": "ＬＮ\u2013" + ref + "-0042"}, "loanId")
	duplicate("email with a zero-width space", map[string]any{"email": "ngozi.oka\u200bfor@example.com"}, "email")
	duplicate("email with a word joiner and capitals", map[string]any{"email": "\u2060Ngozi.Okafor@EXAMPLE.com"}, "email")
	duplicate("email in fullwidth", map[string]any{"email": "ｎｇｏｚｉ.ｏｋａｆｏｒ＠example.com"}, "email")
	for _, other := range []string{"ngozi.okafor+loans@example.com", "ngoziokafor@example.com"} {
		if r := P.API(t, "POST", "/api/v1/customers", key, newCustomer(map[string]any{"email": other})); r.Status != http.StatusCreated {
			t.Errorf("%s: %d %s, want a new customer", other, r.Status, r.Body)
		}
	}
	// The address stored is the one typed, without what cannot be seen.
	r := P.API(t, "POST", "/api/v1/customers", key, newCustomer(map[string]any{"email": "ada\u200b.eze@example.com"}))
	if r.Status != http.StatusCreated || !strings.Contains(string(r.Body), `"email":"ada.eze@example.com"`) {
		t.Errorf("invisible characters kept: %d %s", r.Status, r.Body)
	}
	// relogReason still bypasses the rule, with any spelling.
	if r := P.API(t, "POST", "/api/v1/customers", key, newCustomer(map[string]any{"loanId": strings.ToLower(loan), "relogReason": "New loan"})); r.Status != http.StatusCreated {
		t.Errorf("relog: %d %s", r.Status, r.Body)
	}
}

// nosniff: every binary answer (evidence photos served inline, hosted
// documents, the PDF report, the OpenAPI file) tells browsers not to
// guess its type, with one header value. Then the lender deletes the
// customer, and the public check of its report's code stops saying
// genuine: it names the report as WITHDRAWN.
func TestNoSniffOnBinariesAndWithdrawnReports(t *testing.T) {
	t.Parallel()
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	c := create(t, key, newCustomer(nil))
	noSniff := func(what string, r harness.Response) {
		t.Helper()
		if got := r.Header.Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
			t.Errorf("%s (%d, %s): X-Content-Type-Options %q", what, r.Status, r.Header.Get("Content-Type"), got)
		}
	}
	waitDocumentsReady(t, key, c.ID)
	up := uploadDoc(t, key, c.ID, "UTILITY_BILL", "bill.png", smallPNG())
	var doc struct{ FileURL string }
	up.Decode(t, &doc)
	if r := download(t, key, doc.FileURL); r.Status != http.StatusOK {
		t.Fatalf("document download: %d", r.Status)
	} else {
		noSniff("document", r)
	}
	s := waitOverall(t, key, c.ID, "VERIFIED")
	photo, err := url.Parse(s.Addresses[0].VerificationData.VerificationPhotos[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	if r := P.API(t, "GET", photo.Path, key, nil); r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "image/") {
		t.Fatalf("photo: %d %s", r.Status, r.Header.Get("Content-Type"))
	} else {
		noSniff("photo", r)
	}
	rep := waitReport(t, key, c.ID)
	if rep.Status != http.StatusOK {
		t.Fatalf("report: %d %s", rep.Status, rep.Body)
	}
	noSniff("report", rep)
	noSniff("OpenAPI", P.Do(t, harness.Request{Method: "GET", URL: P.GatewayURL + "/api/v1/openapi.yaml"}))
	noSniff("an error", P.API(t, "GET", "/api/v1/customers/cus_0", key, nil))

	m := codeOnReport.FindStringSubmatch(pdftest.Text(t, rep.Body))
	if m == nil {
		t.Fatal("no verification code on the report")
	}
	if v := verify(t, m[1]); v.Status != http.StatusOK || !strings.Contains(string(v.Body), `"genuine":true`) {
		t.Fatalf("verify before the delete: %d %s", v.Status, v.Body)
	}
	if r := P.API(t, "DELETE", "/api/v1/customers/"+c.ID, key, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	var got struct {
		Genuine  bool
		Reason   *string
		ReportID string
	}
	eventually.Value(t, patience, "the report withdrawn", func() (string, bool) {
		v := verify(t, m[1])
		got.Reason = nil
		v.Decode(t, &got)
		return string(v.Body), v.Status == http.StatusOK && got.Reason != nil
	})
	if got.Genuine || *got.Reason != "WITHDRAWN" || got.ReportID == "" {
		t.Fatalf("verify after the delete: %+v", got)
	}
}
