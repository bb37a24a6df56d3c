package verification

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kycfield/kyc/pkg/apperr"
)

// mergeDocuments is have with every document of add that it lacks (by
// id), in order. Documents are never removed, and they reach this context
// by two roads (the customer's own events, and document.added from the
// document context) in no fixed order: a union loses none of them.
func mergeDocuments(have, add []byte) ([]byte, error) {
	var docs, more []json.RawMessage
	if err := unmarshalDocs(have, &docs); err != nil {
		return nil, err
	}
	if err := unmarshalDocs(add, &more); err != nil {
		return nil, apperr.Validation(apperr.Detail{Field: "documents", Message: err.Error()})
	}
	seen := make([]string, 0, len(docs))
	for _, d := range docs {
		seen = append(seen, docID(d))
	}
	for _, d := range more {
		if id := docID(d); !slices.Contains(seen, id) {
			docs, seen = append(docs, d), append(seen, id)
		}
	}
	if docs == nil {
		docs = []json.RawMessage{}
	}
	return json.Marshal(docs)
}

func unmarshalDocs(b []byte, into *[]json.RawMessage) error {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("documents: %w", err)
	}
	return nil
}

// docID is what tells documents apart: the id, or for one without an id
// (none should come) the whole document, its keys in order (the database
// keeps JSON in an order of its own).
func docID(d json.RawMessage) string {
	var v map[string]any
	if json.Unmarshal(d, &v) != nil {
		return "document " + string(d)
	}
	if id, ok := v["id"].(string); ok && id != "" {
		return id
	}
	canonical, _ := json.Marshal(v) // map keys marshal sorted
	return "document " + string(canonical)
}
