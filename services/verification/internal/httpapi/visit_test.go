package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/httpapi"
)

type photo struct {
	ID, Tag, ContentType string
	Size                 int64
	Device               *struct{ Latitude, Longitude, Accuracy float64 }
}

func TestAgentPhotos(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.newAgent(t, "Lagos")
	adr := f.openLive(t, "Lagos")
	expect(t, "check-in", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/check-in", "c1",
		map[string]any{"latitude": 6.4281, "longitude": 3.4219, "accuracy": 12})), http.StatusOK, "")
	img := jpegBytes(t)
	gps := []string{"tag", "building_front", "capturedAt", "2026-11-26T09:00:00Z", "latitude", "6.4282", "longitude", "3.4218", "accuracy", "8"}

	q := a.call("POST", "/agent/v1/tasks/"+adr+"/photos", "p1", `{"tag":"building_front"}`)
	expect(t, "not multipart", f.do(t, q), http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE")
	r := f.upload(t, a, adr, "p1", nil, "tag", "building_front")
	expect(t, "no file", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "file" {
		t.Fatalf("no file: %s", r.body)
	}
	expect(t, "a text file", f.upload(t, a, adr, "p1", []byte("just some text, not a photo"), "tag", "building_front"),
		http.StatusUnsupportedMediaType, "UNSUPPORTED_FILE_TYPE")
	r = f.upload(t, a, adr, "p1", img)
	expect(t, "no tag", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "tag" {
		t.Fatalf("no tag: %s", r.body)
	}
	expect(t, "an unknown tag", f.upload(t, a, adr, "p1", img, "tag", "selfie"), http.StatusBadRequest, "VALIDATION_ERROR")
	expect(t, "an unknown field", f.upload(t, a, adr, "p1", img, "tag", "building_front", "colour", "red"), http.StatusBadRequest, "VALIDATION_ERROR")
	r = f.upload(t, a, adr, "p1", img, "tag", "building_front", "latitude", "north", "longitude", "3.4")
	expect(t, "a bad position", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "latitude" {
		t.Fatalf("a bad position: %s", r.body)
	}
	for _, v := range [][2]string{{"NaN", "8"}, {"6.4282", "Inf"}} {
		r = f.upload(t, a, adr, "p1", img, "tag", "building_front", "latitude", v[0], "longitude", "3.4218", "accuracy", v[1])
		expect(t, "a position that is not a number: "+v[0]+" "+v[1], r, http.StatusBadRequest, "VALIDATION_ERROR")
	}
	expect(t, "a bad capture time", f.upload(t, a, adr, "p1", img, "tag", "building_front", "capturedAt", "yesterday"),
		http.StatusBadRequest, "VALIDATION_ERROR")
	r = f.upload(t, a, adr, "", img, gps...)
	expect(t, "no Idempotency-Key", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "Idempotency-Key" {
		t.Fatalf("no Idempotency-Key: %s", r.body)
	}
	body, ctype := photoForm(t, img, gps...)
	q = a.call("POST", "/agent/v1/tasks/"+adr+"/photos", "p1", body)
	q.ctype, q.kind = ctype, principal.KindGateway
	expect(t, "a gateway principal", f.do(t, q), http.StatusUnauthorized, "UNAUTHORIZED")
	if n := f.objects(t); n != 0 {
		t.Fatalf("refused uploads left %d files in the store", n)
	}

	r = f.upload(t, a, adr, "p1", img, gps...)
	expect(t, "photo", r, http.StatusCreated, "")
	var first photo
	r.data(t, &first)
	if first.ID == "" || first.Tag != "building_front" || first.ContentType != "image/jpeg" || first.Size != int64(len(img)) ||
		first.Device == nil || first.Device.Accuracy != 8 {
		t.Fatalf("photo: %s", r.body)
	}
	r = f.upload(t, a, adr, "p1", img, gps...)
	expect(t, "the same photo again", r, http.StatusCreated, "")
	var again photo
	r.data(t, &again)
	if again.ID != first.ID {
		t.Fatalf("a retry stored another photo: %s then %s", first.ID, again.ID)
	}
	expect(t, "the key with another photo", f.upload(t, a, adr, "p1", img, "tag", "street_view"),
		http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
	if n := f.objects(t); n != 1 {
		t.Fatalf("%d files in the store for one photo", n)
	}
}

func TestAgentComplete(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.newAgent(t, "Lagos")
	adr := f.openLive(t, "Lagos")
	path := "/agent/v1/tasks/" + adr + "/complete"
	expect(t, "check-in", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/check-in", "c1",
		map[string]any{"latitude": 6.4281, "longitude": 3.4219, "accuracy": 12})), http.StatusOK, "")
	verified := map[string]any{"outcome": "VERIFIED", "verifiedAddress": "12 Adeola Odeku Street, Victoria Island",
		"latitude": 6.4281, "longitude": 3.4219, "accuracy": 10, "notes": "Met Ngozi at the gate.",
		"resident": map[string]any{"name": "Ngozi Okafor", "relationship": "self", "yearsAtAddress": 4},
		"building": map[string]any{"type": "Duplex", "colour": "Cream", "gatePresent": true}}

	expect(t, "no outcome", f.do(t, a.call("POST", path, "d1", map[string]any{"latitude": 6.4, "longitude": 3.4, "accuracy": 10})),
		http.StatusBadRequest, "VALIDATION_ERROR")
	r := f.do(t, a.call("POST", path, "d1", map[string]any{"outcome": "VERIFIED", "latitude": 6.4, "longitude": 3.4, "accuracy": 10}))
	expect(t, "VERIFIED without the address", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "verifiedAddress" {
		t.Fatalf("VERIFIED without the address: %s", r.body)
	}
	expect(t, "an unknown outcome", f.do(t, a.call("POST", path, "d1", map[string]any{"outcome": "MAYBE", "latitude": 6.4, "longitude": 3.4, "accuracy": 10})),
		http.StatusBadRequest, "VALIDATION_ERROR")
	expect(t, "no Idempotency-Key", f.do(t, a.call("POST", path, "", verified)), http.StatusBadRequest, "VALIDATION_ERROR")
	r = f.do(t, a.call("POST", path, "d1", verified))
	expect(t, "VERIFIED without photos", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "photos" {
		t.Fatalf("VERIFIED without photos: %s", r.body)
	}
	for _, tag := range []string{"building_front", "street_view"} {
		expect(t, "photo", f.upload(t, a, adr, "p"+tag, jpegBytes(t), "tag", tag, "latitude", "6.4281", "longitude", "3.4219", "accuracy", "9"),
			http.StatusCreated, "")
	}
	wrongKind := a.call("POST", path, "d2", verified)
	wrongKind.kind = principal.KindAPIKey
	expect(t, "an API key's principal", f.do(t, wrongKind), http.StatusUnauthorized, "UNAUTHORIZED")

	r = f.do(t, a.call("POST", path, "d2", verified))
	expect(t, "complete", r, http.StatusOK, "")
	var task httpapi.Task
	r.data(t, &task)
	if task.Status != "VERIFIED" || task.PhotoCount != 2 || !strings.Contains(string(r.body), `"verifiedAddress":"12 Adeola Odeku Street, Victoria Island"`) {
		t.Fatalf("complete: %s", r.body)
	}
	expect(t, "the same completion again", f.do(t, a.call("POST", path, "d2", verified)), http.StatusOK, "")
	// A photo upload retried after the visit ended (its answer was lost)
	// is answered as the first was; a new one is refused, nothing stored.
	before := f.objects(t)
	expect(t, "a photo retried after completion", f.upload(t, a, adr, "pbuilding_front", jpegBytes(t), "tag", "building_front",
		"latitude", "6.4281", "longitude", "3.4219", "accuracy", "9"), http.StatusCreated, "")
	expect(t, "a new photo after completion", f.upload(t, a, adr, "p-late", jpegBytes(t), "tag", "gate"), http.StatusConflict, "INVALID_TRANSITION")
	if n := f.objects(t); n != before {
		t.Fatalf("%d files after the late uploads, %d before", n, before)
	}
	expect(t, "completing twice", f.do(t, a.call("POST", path, "d3", verified)), http.StatusConflict, "INVALID_TRANSITION")
	r = f.do(t, a.call("GET", "/agent/v1/tasks", "", nil))
	var d struct{ Tasks []httpapi.Task }
	r.data(t, &d)
	if len(d.Tasks) != 0 {
		t.Fatalf("a final task stays on the list: %s", r.body)
	}
}

// objects counts the files in the fixture's photo bucket.
func (f fixture) objects(t *testing.T) int {
	t.Helper()
	n := 0
	for o := range f.photos.Client.ListObjects(context.Background(), f.photos.Name, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		n++
	}
	return n
}

// TestAgentOutcomesOtherThanVerified: NO_ACCESS and UNSAFE_AREA are
// attempts that leave the task with the agent; a rejection ends it.
func TestAgentOutcomesOtherThanVerified(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.newAgent(t, "Lagos")
	at := map[string]any{"latitude": 6.4281, "longitude": 3.4219, "accuracy": 12}
	for _, tc := range []struct {
		outcome, reason, status string
		attempts                int
		due                     bool
	}{
		{"NO_ACCESS", "", "ASSIGNED", 1, true},
		{"REJECTED", "UNSAFE_AREA", "IN_REVIEW", 1, false}, // held for operations
		{"REJECTED", "CUSTOMER_MOVED", "REJECTED", 0, false},
	} {
		adr := f.openLive(t, "Lagos")
		expect(t, "check-in", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/check-in", "c-"+adr, at)), http.StatusOK, "")
		body := map[string]any{"outcome": tc.outcome, "latitude": 6.4281, "longitude": 3.4219, "accuracy": 12, "notes": "Gate locked."}
		if tc.reason != "" {
			body["reason"] = tc.reason
		}
		r := f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/complete", "d-"+adr, body))
		expect(t, tc.outcome+" "+tc.reason, r, http.StatusOK, "")
		var task httpapi.Task
		r.data(t, &task)
		if task.Status != tc.status || len(task.Attempts) != tc.attempts || (task.DueAt != nil) != tc.due {
			t.Fatalf("%s %s: %s", tc.outcome, tc.reason, r.body)
		}
	}
	r := f.do(t, a.call("POST", "/agent/v1/tasks/"+f.openLive(t, "Lagos")+"/complete", "d-x",
		map[string]any{"outcome": "REJECTED", "reason": "OTHER", "latitude": 6.4281, "longitude": 3.4219, "accuracy": 12}))
	expect(t, "OTHER without notes", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "notes" {
		t.Fatalf("OTHER without notes: %s", r.body)
	}
}

// TestPhotoUploadChecksTheTaskFirst: a photo for a task that is not the
// agent's own and under way, or for a path that is no address id, is
// refused before a byte reaches storage (issue 31 item 5): nothing is
// stored, nothing announced.
func TestPhotoUploadChecksTheTaskFirst(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ade, bisi := f.newAgent(t, "Lagos"), f.newAgent(t, "Lagos")
	adr := f.openLive(t, "Lagos") // Adé's: the agent with the fewest tasks gets it
	var owner, other agent = ade, bisi
	if r := f.do(t, ade.call("GET", "/agent/v1/tasks", "", nil)); !strings.Contains(string(r.body), adr) {
		owner, other = bisi, ade
	}
	img := jpegBytes(t)
	for _, tc := range []struct {
		name, path string
		a          agent
		status     int
		code       string
	}{
		{"another agent's task", adr, other, http.StatusNotFound, "NOT_FOUND"},
		{"before check-in", adr, owner, http.StatusConflict, "INVALID_TRANSITION"},
		{"a path with ..", "..%2F..%2Fsandbox", owner, http.StatusNotFound, "NOT_FOUND"},
		{"a path with .. and an id", "..%2F" + adr, owner, http.StatusNotFound, "NOT_FOUND"},
		{"an id with a slash", adr + "%2Fx", owner, http.StatusNotFound, "NOT_FOUND"},
		{"an unknown id", "adr_00000000000000000000000000000000", owner, http.StatusNotFound, "NOT_FOUND"},
	} {
		body, ctype := photoForm(t, img, "tag", "building_front")
		q := tc.a.call("POST", "/agent/v1/tasks/"+tc.path+"/photos", "k-"+tc.name, body)
		q.ctype = ctype
		expect(t, tc.name, f.do(t, q), tc.status, tc.code)
	}
	if n := f.objects(t); n != 0 {
		t.Fatalf("refused uploads left %d files in the store", n)
	}
	var announced int
	if err := f.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM pending_objects`).Scan(&announced); err != nil {
		t.Fatal(err)
	}
	if announced != 0 {
		t.Fatalf("refused uploads announced %d files", announced)
	}
}
