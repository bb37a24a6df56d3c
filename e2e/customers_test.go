package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
)

// sandbox returns a fresh organization's sandbox key with both scopes.
func sandbox(t *testing.T) string {
	t.Helper()
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	return key
}

func create(t *testing.T, key string, body map[string]any) customerView {
	t.Helper()
	r := P.API(t, "POST", "/api/v1/customers", key, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var c customerView
	r.Decode(t, &c)
	return c
}

func details(r harness.Response) map[string]string {
	out := map[string]string{}
	if r.Env.Error != nil {
		for _, d := range r.Env.Error.Details {
			out[d.Field] = d.Message
		}
	}
	return out
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	addr := map[string]any{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos"}
	six := []map[string]any{addr, addr, addr, addr, addr, addr}
	cases := []struct {
		name  string
		body  any
		code  string
		field string
	}{
		{"missing first name", newCustomer(map[string]any{"firstName": nil}), "VALIDATION_ERROR", "firstName"},
		{"short first name", newCustomer(map[string]any{"firstName": "N"}), "VALIDATION_ERROR", "firstName"},
		{"long last name", newCustomer(map[string]any{"lastName": strings.Repeat("a", 51)}), "VALIDATION_ERROR", "lastName"},
		{"digits in name", newCustomer(map[string]any{"lastName": "Ok4for"}), "VALIDATION_ERROR", "lastName"},
		{"missing phone", newCustomer(map[string]any{"phone": nil}), "VALIDATION_ERROR", "phone"},
		{"local phone", newCustomer(map[string]any{"phone": "08031234567"}), "VALIDATION_ERROR", "phone"},
		{"phone starting with 6", newCustomer(map[string]any{"phone": "+2346031234567"}), "VALIDATION_ERROR", "phone"},
		{"phone with dashes", newCustomer(map[string]any{"phone": "+234-803-123-4567"}), "VALIDATION_ERROR", "phone"},
		{"bad email", newCustomer(map[string]any{"email": "ngozi@"}), "VALIDATION_ERROR", "email"},
		{"short bvn", newCustomer(map[string]any{"bvn": "1234567890"}), "VALIDATION_ERROR", "bvn"},
		{"letters in nin", newCustomer(map[string]any{"nin": "1234567890a"}), "VALIDATION_ERROR", "nin"},
		{"bad loan type", newCustomer(map[string]any{"loanType": "MORTGAGE"}), "VALIDATION_ERROR", "loanType"},
		{"no addresses in array", newCustomer(map[string]any{"addresses": []any{}}), "VALIDATION_ERROR", "addresses"},
		{"six addresses", newCustomer(map[string]any{"addresses": six}), "VALIDATION_ERROR", "addresses"},
		{"address without city", newCustomer(map[string]any{"addresses": []map[string]any{{"streetName": "A", "state": "Lagos"}}}), "VALIDATION_ERROR", "addresses[0].city"},
		{"address text too long", newCustomer(map[string]any{"addresses": []map[string]any{{"streetName": strings.Repeat("a", 201), "city": "Ikeja", "state": "Lagos"}}}), "VALIDATION_ERROR", "addresses[0].streetName"},
		{"notes too long", newCustomer(map[string]any{"addresses": []map[string]any{{"streetName": "A", "city": "Ikeja", "state": "Lagos", "notes": strings.Repeat("n", 1001)}}}), "VALIDATION_ERROR", "addresses[0].notes"},
		{"document without type", newCustomer(map[string]any{"documents": []map[string]any{{"fileName": "id.pdf"}}}), "VALIDATION_ERROR", "documents[0].documentType"},
		{"document bad type", newCustomer(map[string]any{"documents": []map[string]any{{"documentType": "SELFIE"}}}), "VALIDATION_ERROR", "documents[0].documentType"},
		{"document private url", newCustomer(map[string]any{"documents": []map[string]any{{"documentType": "ID_CARD", "fileUrl": "http://169.254.169.254/latest"}}}), "VALIDATION_ERROR", "documents[0].fileUrl"},
		{"empty relog reason", newCustomer(map[string]any{"relogReason": "  "}), "VALIDATION_ERROR", "relogReason"},
		{"relog reason too long", newCustomer(map[string]any{"relogReason": strings.Repeat("r", 501)}), "VALIDATION_ERROR", "relogReason"},
		{"unknown field", newCustomer(map[string]any{"nickname": "Nk"}), "VALIDATION_ERROR", "nickname"},
		{"read-only field", newCustomer(map[string]any{"status": "VERIFIED"}), "VALIDATION_ERROR", "status"},
		{"wrong type", newCustomer(map[string]any{"firstName": 42}), "VALIDATION_ERROR", "firstName"},
		{"wrong nested type", newCustomer(map[string]any{"addresses": []any{"Lagos"}}), "VALIDATION_ERROR", "addresses[0]"},
		{"malformed json", `{"firstName": "Ngozi",`, "INVALID_JSON", ""},
		{"empty body", ``, "INVALID_JSON", ""},
		{"not an object", `["Ngozi"]`, "VALIDATION_ERROR", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := P.API(t, "POST", "/api/v1/customers", key, c.body)
			if r.Status != http.StatusBadRequest || r.Code() != c.code {
				t.Fatalf("got %d %s", r.Status, r.Body)
			}
			if c.field != "" {
				if _, ok := details(r)[c.field]; !ok {
					t.Fatalf("no detail for %s: %s", c.field, r.Body)
				}
			}
		})
	}
	t.Run("every bad field at once", func(t *testing.T) {
		r := P.API(t, "POST", "/api/v1/customers", key, map[string]any{"firstName": "N", "lastName": "", "phone": "123", "bvn": "1"})
		d := details(r)
		for _, f := range []string{"firstName", "lastName", "phone", "bvn"} {
			if _, ok := d[f]; !ok {
				t.Errorf("missing detail %s: %s", f, r.Body)
			}
		}
	})
	t.Run("form content type", func(t *testing.T) {
		r := P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/customers", Key: key, Body: "firstName=Ngozi",
			Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
		if r.Status != http.StatusUnsupportedMediaType || r.Code() != "UNSUPPORTED_MEDIA_TYPE" {
			t.Fatalf("got %d %s", r.Status, r.Body)
		}
	})
}

func TestCreateNormalisesAndReturnsTheFullCustomer(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	r := P.API(t, "POST", "/api/v1/customers", key, map[string]any{
		"firstName": "  Adé-Bísí ", "lastName": "O'Neil", "phone": "+234 803 555 0101", "email": "Ade.ONeil@Example.COM",
		"occupation": "Trader", "bvn": "22212345678", "nin": "12345678901", "passportNumber": "a12345678",
		"loanId": "LN-2026-001", "loanType": "PERSONAL",
		"addresses": []map[string]any{{"label": "Home", "streetNumber": "12", "streetName": "Allen Avenue", "landmark": "Opposite the bank",
			"city": "Ikeja", "lga": "Ikeja", "state": "Lagos", "notes": "Call before visiting"}},
		"documents": []map[string]any{{"documentType": "ID_CARD", "fileName": "id.jpg", "fileUrl": "https://files.example.com/id.jpg", "fileType": "image/jpeg", "fileSize": 2048}},
	})
	if r.Status != http.StatusCreated {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var c map[string]any
	r.Decode(t, &c)
	want := map[string]any{"firstName": "Adé-Bísí", "lastName": "O'Neil", "phone": "+2348035550101", "email": "ade.oneil@example.com",
		"bvn": "***5678", "nin": "***8901", "passportNumber": "A12345678", "loanId": "LN-2026-001", "loanType": "PERSONAL",
		"status": "PENDING", "reportUrl": nil, "verificationDate": nil, "relogReason": nil, "occupation": "Trader"}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%s = %v, want %v", k, c[k], v)
		}
	}
	for _, k := range []string{"id", "submittedAt", "createdAt", "updatedAt"} {
		if s, _ := c[k].(string); s == "" {
			t.Errorf("%s missing", k)
		}
	}
	addr := c["addresses"].([]any)[0].(map[string]any)
	if addr["country"] != "Nigeria" || addr["status"] != "PENDING" || addr["verificationData"] != nil || addr["landmark"] != "Opposite the bank" {
		t.Errorf("address: %v", addr)
	}
	doc := c["documents"].([]any)[0].(map[string]any)
	if doc["documentType"] != "ID_CARD" || doc["verified"] != false || doc["uploadedAt"] == nil || doc["fileSize"] != float64(2048) {
		t.Errorf("document: %v", doc)
	}
	if strings.Contains(string(r.Body), "22212345678") || strings.Contains(string(r.Body), "12345678901") {
		t.Fatal("identity numbers returned in clear")
	}
	got := P.API(t, "GET", "/api/v1/customers/"+c["id"].(string), key, nil)
	if got.Status != http.StatusOK || !strings.Contains(string(got.Body), `"bvn":"***5678"`) {
		t.Fatalf("read: %d %s", got.Status, got.Body)
	}
	for _, id := range []string{"nope", "cus_123", "cus_0123456789abcdef0123456789abcdeg", "../../etc"} {
		if r := P.API(t, "GET", "/api/v1/customers/"+id, key, nil); r.Status != http.StatusNotFound || r.Code() != "NOT_FOUND" {
			t.Errorf("malformed id %q: %d %s", id, r.Status, r.Body)
		}
	}
}

func TestDuplicates(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	_, live := P.NewKey(t, org, "live")
	first := create(t, key, newCustomer(map[string]any{"email": "dup@example.com", "loanId": "LN-DUP"}))
	for _, c := range []struct {
		field string
		body  map[string]any
	}{
		{"phone", newCustomer(map[string]any{"phone": first.Phone})},
		{"email", newCustomer(map[string]any{"email": "DUP@example.com"})},
		{"loanId", newCustomer(map[string]any{"loanId": "LN-DUP"})},
	} {
		r := P.API(t, "POST", "/api/v1/customers", key, c.body)
		if r.Status != http.StatusBadRequest || r.Code() != "DUPLICATE_CUSTOMER" {
			t.Fatalf("%s: %d %s", c.field, r.Status, r.Body)
		}
		d := r.Env.Error.Details
		if len(d) != 1 || d[0].Field != c.field || d[0].ExistingID != first.ID {
			t.Fatalf("%s details: %s", c.field, r.Body)
		}
	}
	r := P.API(t, "POST", "/api/v1/customers", key, newCustomer(map[string]any{"phone": first.Phone, "email": "dup@example.com"}))
	if len(r.Env.Error.Details) != 2 {
		t.Fatalf("both matching fields named: %s", r.Body)
	}
	// Same names, different identifiers: not a duplicate.
	create(t, key, newCustomer(nil))
	// Same phone in the other environment: not a duplicate.
	create(t, live, newCustomer(map[string]any{"phone": first.Phone}))
	// relogReason bypasses the check and is kept.
	relog := P.API(t, "POST", "/api/v1/customers", key, newCustomer(map[string]any{"phone": first.Phone, "relogReason": "Second loan application"}))
	if relog.Status != http.StatusCreated || !strings.Contains(string(relog.Body), `"relogReason":"Second loan application"`) {
		t.Fatalf("relog: %d %s", relog.Status, relog.Body)
	}
}

func TestConcurrentDuplicateCreatesThroughTheGateway(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	body := newCustomer(nil)
	var wg sync.WaitGroup
	statuses := make(chan int, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- P.API(t, "POST", "/api/v1/customers", key, body).Status
		}()
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for s := range statuses {
		counts[s]++
	}
	if counts[http.StatusCreated] != 1 || counts[http.StatusBadRequest] != 9 {
		t.Fatalf("statuses: %v", counts)
	}
}

func TestListPaginationFilterAndSearch(t *testing.T) {
	t.Parallel()
	// Live: no agent works these addresses, so every status stays PENDING
	// (the sandbox would verify them while the test reads).
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "live")
	names := [][2]string{{"Chiamaka", "Obi"}, {"Emeka", "Nwosu"}, {"Adébísí", "Ọláoyè"}, {"Chinedu", "Okeke"}, {"Fatima", "Bello"}}
	var ids []string
	for i, n := range names {
		c := create(t, key, newCustomer(map[string]any{"firstName": n[0], "lastName": n[1], "email": fmt.Sprintf("person%d@lender.ng", i), "phone": fmt.Sprintf("+23470%08d", 31337000+i)}))
		ids = append(ids, c.ID)
	}
	type page struct {
		Customers  []customerView `json:"customers"`
		Pagination struct {
			Page                     *int
			Limit, Total, TotalPages int
			HasNext, TotalExact      bool
			NextCursor               *string
		} `json:"pagination"`
	}
	list := func(q string) page {
		t.Helper()
		r := P.API(t, "GET", "/api/v1/customers"+q, key, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("list %s: %d %s", q, r.Status, r.Body)
		}
		var p page
		r.Decode(t, &p)
		return p
	}
	p := list("?limit=2")
	if len(p.Customers) != 2 || p.Pagination.Total != 5 || p.Pagination.TotalPages != 3 || !p.Pagination.HasNext || *p.Pagination.Page != 1 ||
		p.Customers[0].ID != ids[4] || p.Customers[1].ID != ids[3] {
		t.Fatalf("first page: %+v", p)
	}
	last := list("?limit=2&page=3")
	if len(last.Customers) != 1 || last.Pagination.HasNext || last.Customers[0].ID != ids[0] {
		t.Fatalf("last page: %+v", last)
	}
	// Cursor paging walks the same order.
	next := list("?limit=2&cursor=" + *p.Pagination.NextCursor)
	if next.Customers[0].ID != ids[2] || next.Pagination.Page != nil {
		t.Fatalf("cursor page: %+v", next)
	}
	if d := list("").Pagination; d.Limit != 20 || *d.Page != 1 {
		t.Fatalf("defaults: %+v", d)
	}
	searches := map[string][]string{
		"chiamaka":         {ids[0]},
		"NWOSU":            {ids[1]},
		"emeka nwosu":      {ids[1]},
		"adebisi":          {ids[2]},
		"Ọláoyè":           {ids[2]},
		"person3@lender":   {ids[3]},
		"lender.ng":        {ids[4], ids[3], ids[2], ids[1], ids[0]},
		"0703133700":       {ids[4], ids[3], ids[2], ids[1], ids[0]},
		"+2347031337004":   {ids[4]},
		"31337001":         {ids[1]},
		"chi":              {ids[3], ids[0]},
		"nobody-like-this": {},
	}
	for term, want := range searches {
		got := list("?search=" + url.QueryEscape(term))
		var gotIDs []string
		for _, c := range got.Customers {
			gotIDs = append(gotIDs, c.ID)
		}
		if strings.Join(gotIDs, ",") != strings.Join(want, ",") || got.Pagination.Total != len(want) {
			t.Errorf("search %q: got %v (total %d), want %v", term, gotIDs, got.Pagination.Total, want)
		}
	}
	if got := list("?status=PENDING"); got.Pagination.Total != 5 {
		t.Errorf("status filter: %+v", got.Pagination)
	}
	if got := list("?status=VERIFIED"); got.Pagination.Total != 0 || len(got.Customers) != 0 {
		t.Errorf("status filter: %+v", got.Pagination)
	}
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=x", "?page=0", "?status=DONE", "?cursor=zzz", "?page=10000"} {
		r := P.API(t, "GET", "/api/v1/customers"+q, key, nil)
		if r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", q, r.Status, r.Body)
		}
	}
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	a := create(t, key, newCustomer(map[string]any{"email": "a@example.com", "occupation": "Teacher"}))
	b := create(t, key, newCustomer(nil))
	r := P.API(t, "PUT", "/api/v1/customers/"+b.ID, key, map[string]any{"firstName": "Amaka", "bvn": "22298765432", "loanType": "BUSINESS"})
	if r.Status != http.StatusOK {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}
	var got map[string]any
	r.Decode(t, &got)
	if got["firstName"] != "Amaka" || got["lastName"] != "Okafor" || got["bvn"] != "***5432" || got["loanType"] != "BUSINESS" || got["phone"] != b.Phone {
		t.Fatalf("updated: %v", got)
	}
	if r := P.API(t, "PUT", "/api/v1/customers/"+a.ID, key, map[string]any{"email": nil}); !strings.Contains(string(r.Body), `"email":null`) {
		t.Fatalf("clearing email: %s", r.Body)
	}
	cases := []struct {
		body  any
		code  string
		field string
	}{
		{map[string]any{"phone": a.Phone}, "DUPLICATE_CUSTOMER", "phone"},
		{map[string]any{"addresses": []any{}}, "VALIDATION_ERROR", "addresses"},
		{map[string]any{"documents": []any{}}, "VALIDATION_ERROR", "documents"},
		{map[string]any{"relogReason": "x"}, "VALIDATION_ERROR", "relogReason"},
		{map[string]any{"firstName": nil}, "VALIDATION_ERROR", "firstName"},
		{map[string]any{"phone": "0803"}, "VALIDATION_ERROR", "phone"},
		{map[string]any{}, "VALIDATION_ERROR", "body"},
		{map[string]any{"id": "cus_x"}, "VALIDATION_ERROR", "id"},
	}
	for _, c := range cases {
		r := P.API(t, "PUT", "/api/v1/customers/"+b.ID, key, c.body)
		if r.Status != http.StatusBadRequest || r.Code() != c.code {
			t.Errorf("%v: %d %s", c.body, r.Status, r.Body)
			continue
		}
		if _, ok := details(r)[c.field]; !ok {
			t.Errorf("%v: no detail for %s: %s", c.body, c.field, r.Body)
		}
	}
	if r := P.API(t, "PUT", "/api/v1/customers/cus_missing", key, map[string]any{"firstName": "Ada"}); r.Status != http.StatusNotFound {
		t.Errorf("missing: %d", r.Status)
	}
}

func TestDeleteAndAddresses(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	events := kafkatest.Follow(t, P.Bus, P.Bus.Topic(event.TopicCustomer))
	c := create(t, key, newCustomer(nil))
	addr := map[string]any{"streetName": "Broad Street", "city": "Lagos Island", "state": "Lagos", "notes": "Ask for Mama Ngozi"}
	for i := 2; i <= 5; i++ {
		r := P.API(t, "POST", "/api/v1/customers/"+c.ID+"/addresses", key, addr)
		var got customerView
		r.Decode(t, &got)
		if r.Status != http.StatusCreated || len(got.Addresses) != i || got.Addresses[i-1].Status != "PENDING" {
			t.Fatalf("address %d: %d %s", i, r.Status, r.Body)
		}
	}
	if r := P.API(t, "POST", "/api/v1/customers/"+c.ID+"/addresses", key, addr); r.Status != http.StatusBadRequest || r.Code() != "ADDRESS_LIMIT_EXCEEDED" {
		t.Fatalf("sixth address: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "POST", "/api/v1/customers/"+c.ID+"/addresses", key, map[string]any{"city": "Ikeja"}); r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" {
		t.Fatalf("invalid address: %d %s", r.Status, r.Body)
	}
	events.WaitFor(func(e event.Event) bool { return e.Type == "address.added" && strings.Contains(string(e.Data), c.ID) }, 10*time.Second)

	r := P.API(t, "DELETE", "/api/v1/customers/"+c.ID, key, nil)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"deleted":true`) || !strings.Contains(string(r.Body), c.ID) {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	for _, call := range [][2]string{{"GET", ""}, {"PUT", ""}, {"DELETE", ""}, {"POST", "/addresses"}} {
		var body any
		if call[0] == "PUT" {
			body = map[string]any{"occupation": "x"}
		} else if call[0] == "POST" {
			body = addr
		}
		if r := P.API(t, call[0], "/api/v1/customers/"+c.ID+call[1], key, body); r.Status != http.StatusNotFound {
			t.Errorf("%s after delete: %d %s", call, r.Status, r.Body)
		}
	}
	if l := P.API(t, "GET", "/api/v1/customers", key, nil); strings.Contains(string(l.Body), c.ID) || !strings.Contains(string(l.Body), `"total":0`) {
		t.Errorf("deleted customer still listed: %s", l.Body)
	}
	create(t, key, newCustomer(map[string]any{"phone": c.Phone})) // its phone no longer blocks
	events.WaitFor(func(e event.Event) bool {
		return e.Type == "customer.deleted" && strings.Contains(string(e.Data), c.ID)
	}, 10*time.Second)
}

func TestIdempotentRetries(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	body := newCustomer(nil)
	post := func(k string, b any) harness.Response {
		return P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/customers", Key: key, Body: b, Header: map[string]string{"Idempotency-Key": k}})
	}
	first := post("order-1", body)
	again := post("order-1", body)
	if first.Status != http.StatusCreated || again.Status != http.StatusCreated || string(first.Body) != string(again.Body) ||
		again.Header.Get("Idempotent-Replayed") != "true" || again.Header.Get("X-Request-Id") != first.Env.Meta.RequestID {
		t.Fatalf("replay differs:\n%s\n%s\n%v", first.Body, again.Body, again.Header)
	}
	if l := P.API(t, "GET", "/api/v1/customers", key, nil); !strings.Contains(string(l.Body), `"total":1`) {
		t.Fatalf("ran twice: %s", l.Body)
	}
	other := newCustomer(nil)
	if r := post("order-1", other); r.Status != http.StatusUnprocessableEntity || r.Code() != "IDEMPOTENCY_KEY_REUSED" {
		t.Fatalf("reuse: %d %s", r.Status, r.Body)
	}
	// A validation failure is a response too: replayed, not re-run.
	bad := newCustomer(map[string]any{"phone": "123"})
	if a, b := post("order-2", bad), post("order-2", bad); a.Status != 400 || b.Status != 400 || b.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("4xx replay: %d %d", a.Status, b.Status)
	}
	// Another organization may use the same key independently.
	if r := P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/customers", Key: sandbox(t), Body: other,
		Header: map[string]string{"Idempotency-Key": "order-1"}}); r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("other org: %d %s", r.Status, r.Body)
	}
	if r := post(strings.Repeat("k", 256), body); r.Status != http.StatusBadRequest {
		t.Fatalf("overlong key: %d", r.Status)
	}
}

func TestIdempotencyConcurrentRetriesRunOnce(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	body := newCustomer(nil)
	var wg sync.WaitGroup
	results := make(chan harness.Response, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/customers", Key: key, Body: body,
				Header: map[string]string{"Idempotency-Key": "burst"}})
		}()
	}
	wg.Wait()
	close(results)
	for r := range results {
		if r.Status != http.StatusCreated && !(r.Status == http.StatusConflict && r.Code() == "REQUEST_IN_PROGRESS") {
			t.Errorf("unexpected %d %s", r.Status, r.Body)
		}
	}
	if l := P.API(t, "GET", "/api/v1/customers", key, nil); !strings.Contains(string(l.Body), `"total":1`) {
		t.Fatalf("created more than once: %s", l.Body)
	}
}

func TestVerificationEventsUpdateStatusAndList(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "live")
	c := create(t, key, newCustomer(nil))
	w := kafkabus.NewWriter(P.Bus)
	defer w.Close()
	data, _ := json.Marshal(map[string]any{"customerId": c.ID, "addressId": c.Addresses[0].ID, "status": "VERIFIED", "sequence": 4,
		"occurredAt": time.Now().UTC(), "overallStatus": "VERIFIED", "verificationDate": time.Now().UTC(), "verificationData": map[string]any{"verifiedAddress": "12 Adeola Odeku Street, Victoria Island",
			"verifiedLatitude": 6.4281, "verifiedLongitude": 3.4219, "agentNotes": "Met the customer's sister", "verificationPhotos": []any{}}})
	e := event.Event{ID: "evt-" + c.ID, Type: "verification.address.updated", Time: time.Now(), OrgID: org, Environment: "live", Data: data}
	raw, _ := json.Marshal(e)
	for range 2 { // delivered twice: applied once
		if err := w.WriteMessages(context.Background(), kafka.Message{Topic: P.Bus.Topic(event.TopicVerification), Key: []byte(c.ID), Value: raw}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := P.API(t, "GET", "/api/v1/customers/"+c.ID, key, nil)
		if strings.Contains(string(r.Body), `"status":"VERIFIED"`) {
			var got map[string]any
			r.Decode(t, &got)
			addr := got["addresses"].([]any)[0].(map[string]any)
			vd, _ := addr["verificationData"].(map[string]any)
			if got["status"] != "VERIFIED" || got["verificationDate"] == nil || vd["verifiedAddress"] == nil {
				t.Fatalf("read model: %s", r.Body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status never updated: %s", r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if l := P.API(t, "GET", "/api/v1/customers?status=VERIFIED", key, nil); !strings.Contains(string(l.Body), c.ID) || !strings.Contains(string(l.Body), `"total":1`) {
		t.Fatalf("list filter: %s", l.Body)
	}
}
