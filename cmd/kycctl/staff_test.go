package main

import (
	"strings"
	"testing"
)

// The first admin is bootstrapped with kycctl: one JSON object whose
// enrolUrl is the one-time link to the console, the token in its fragment.
func TestKycctlStaffCreateAndReviewPolicy(t *testing.T) {
	base := startAuthBilling(t)
	out, err := ctl(t, base, "staff", "create", "--email", "Ada@Ops.Example.ng", "--name", "Ada Obi", "--role", "admin")
	if err != nil {
		t.Fatalf("staff create: %v", err)
	}
	staff, _ := out["staff"].(map[string]any)
	link, _ := out["enrolUrl"].(string)
	if staff["email"] != "ada@ops.example.ng" || staff["role"] != "admin" || staff["status"] != "invited" ||
		!strings.HasPrefix(staff["id"].(string), "stf_") || !strings.HasPrefix(link, "http://127.0.0.1:8080/ops/#enrol=") {
		t.Fatalf("staff create: %v", out)
	}
	if _, err := ctl(t, base, "staff", "create", "--email", "ada@ops.example.ng", "--name", "Ada Again", "--role", "admin"); err == nil ||
		!strings.Contains(err.Error(), "STAFF_EMAIL_TAKEN") {
		t.Fatalf("the same email twice: %v", err)
	}
	if _, err := ctl(t, base, "staff", "create", "--email", "x@ops.example.ng", "--name", "X Y", "--role", "owner"); err == nil ||
		!strings.Contains(err.Error(), "role") {
		t.Fatalf("an unknown role: %v", err)
	}

	org, err := ctl(t, base, "orgs", "create", "--name", "Acme Lending", "--plan", "growth")
	if err != nil {
		t.Fatal(err)
	}
	id := org["id"].(string)
	got, err := ctl(t, base, "orgs", "review-policy", id, "FLAGGED", "--sla-hours", "48")
	if err != nil || got["reviewPolicy"] != "FLAGGED" || got["slaHours"] != float64(48) {
		t.Fatalf("orgs review-policy: %v %v", got, err)
	}
	if got, err := ctl(t, base, "orgs", "review-policy", id, "ALL"); err != nil || got["reviewPolicy"] != "ALL" || got["slaHours"] != float64(48) {
		t.Fatalf("orgs review-policy without --sla-hours keeps the target: %v %v", got, err)
	}
	if _, err := ctl(t, base, "orgs", "review-policy", id, "SOMETIMES"); err == nil || !strings.Contains(err.Error(), "VALIDATION_ERROR") ||
		!strings.Contains(err.Error(), "reviewPolicy") {
		t.Fatalf("a bad policy: %v", err)
	}
	if _, err := ctl(t, base, "orgs", "review-policy", "org_00000000000000000000000000000000", "ALL"); err == nil || !strings.Contains(err.Error(), "NOT_FOUND") {
		t.Fatalf("an unknown organization: %v", err)
	}
}
