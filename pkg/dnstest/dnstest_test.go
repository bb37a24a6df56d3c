package dnstest

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
)

func TestResolverAnswersFromTheTable(t *testing.T) {
	r := Resolver(Hosts{"dual.test.example": {"192.0.2.7", "2001:db8::7"}, "mapped.test.example": {"::ffff:10.0.0.1"}})
	got, err := r.LookupHost(context.Background(), "dual.test.example")
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []string{"192.0.2.7", "2001:db8::7"}) {
		t.Fatalf("dual: %v %v", got, err)
	}
	ips, err := r.LookupIPAddr(context.Background(), "mapped.test.example")
	if err != nil || len(ips) != 1 || !ips[0].IP.Equal(net.ParseIP("10.0.0.1")) {
		t.Fatalf("mapped: %v %v", ips, err)
	}
	var dnsErr *net.DNSError
	if _, err := r.LookupHost(context.Background(), "missing.test.example"); !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Fatalf("missing: %v", err)
	}
}
