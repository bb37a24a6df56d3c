package verification

import "testing"

func TestMergeDocumentsKeepsEveryDocumentOnce(t *testing.T) {
	cases := []struct{ name, have, add, want string }{
		{"nothing yet", ``, `[{"id":"doc_1"}]`, `[{"id":"doc_1"}]`},
		{"null yet", `null`, `[]`, `[]`},
		{"a new one is appended", `[{"id":"doc_1"}]`, `[{"id":"doc_2"}]`, `[{"id":"doc_1"},{"id":"doc_2"}]`},
		{"a redelivery changes nothing", `[{"id":"doc_1"},{"id":"doc_2"}]`, `[{"id":"doc_2"}]`, `[{"id":"doc_1"},{"id":"doc_2"}]`},
		{"an older list loses none", `[{"id":"doc_1"},{"id":"doc_2"}]`, `[{"id":"doc_1"}]`, `[{"id":"doc_1"},{"id":"doc_2"}]`},
		{"without ids, by content", `[{"fileName":"a"}]`, `[{"fileName":"a"},{"fileName":"b"}]`, `[{"fileName":"a"},{"fileName":"b"}]`},
	}
	for _, c := range cases {
		got, err := mergeDocuments([]byte(c.have), []byte(c.add))
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %s %v, want %s", c.name, got, err, c.want)
		}
	}
	if _, err := mergeDocuments([]byte(`[]`), []byte(`{"not":"a list"}`)); err == nil {
		t.Error("a malformed list was merged")
	}
}
