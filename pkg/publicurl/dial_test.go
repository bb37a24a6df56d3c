package publicurl

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/dnstest"
)

type table map[string][]string

func (tb table) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	var out []net.IPAddr
	for _, s := range tb[host] {
		out = append(out, net.IPAddr{IP: net.ParseIP(s)})
	}
	if out == nil {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

func TestResolve(t *testing.T) {
	r := table{"public.example": {"93.184.216.34", "2606:2800:220:1::1"}, "loop.example": {"127.0.0.1"},
		"mixed.example": {"93.184.216.34", "10.0.0.1"}, "mapped.example": {"::ffff:169.254.169.254"}}
	cases := []struct {
		host    string
		public  bool
		nxIsErr bool
	}{
		{"public.example", true, false},
		{"93.184.216.34", true, false},
		{"loop.example", false, false},
		{"mixed.example", false, false},
		{"mapped.example", false, false},
		{"100.64.0.1", false, false},
		{"::1", false, false},
		{"missing.example", false, true},
		{"64:ff9b::a9fe:a9fe", false, false},
		{"2002:a9fe:a9fe::1", false, false},
		{"::ffff:10.0.0.1", false, false},
	}
	for _, c := range cases {
		err := Resolve(context.Background(), r, c.host)
		switch {
		case c.public && err != nil:
			t.Errorf("%s: %v", c.host, err)
		case !c.public && !c.nxIsErr && !errors.Is(err, ErrNotPublic):
			t.Errorf("%s: %v, want ErrNotPublic", c.host, err)
		case c.nxIsErr && (err == nil || errors.Is(err, ErrNotPublic)):
			t.Errorf("%s: %v, want a resolution error", c.host, err)
		}
	} // Through a real resolver (in process): every name in the table is refused.
	dns := dnstest.Resolver(namesToNonPublic)
	for name := range namesToNonPublic {
		if err := Resolve(context.Background(), dns, name); !errors.Is(err, ErrNotPublic) {
			t.Errorf("%s: %v, want ErrNotPublic", name, err)
		}
	}
}

func TestDialControl(t *testing.T) {
	for addr, ok := range map[string]bool{"93.184.216.34:443": true, "[2606:2800:220:1::1]:443": true, "93.184.216.34:8443": true,
		"127.0.0.1:80": false, "10.1.2.3:443": false, "169.254.169.254:80": false, "[::1]:80": false, "[::ffff:127.0.0.1]:80": false,
		"[::ffff:169.254.169.254]:80": false, "[::ffff:10.0.0.1]:443": false, "[64:ff9b::a9fe:a9fe]:80": false,
		"[2002:a9fe:a9fe::1]:443": false, "100.64.0.1:80": false, "0.0.0.0:80": false, "224.0.0.1:80": false, "nonsense": false} {
		network := "tcp4"
		if strings.HasPrefix(addr, "[") {
			network = "tcp6"
		}
		if err := DialControl(network, addr, nil); (err == nil) != ok || (err != nil && !errors.Is(err, ErrNotPublic)) {
			t.Errorf("%s: %v", addr, err)
		}
	}
	if err := DialControl("udp4", "93.184.216.34:53", nil); !errors.Is(err, ErrNotPublic) {
		t.Errorf("udp: %v", err)
	}
	// A real dial to loopback through a guarded dialer is refused before
	// any packet leaves.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := net.Dialer{Control: DialControl}
	if _, err := d.Dial("tcp", ln.Addr().String()); !errors.Is(err, ErrNotPublic) {
		t.Fatalf("dial loopback: %v", err)
	}
}

// What a host name resolves to is checked at connect time, so a name
// whose record points at the metadata address in any spelling (NAT64,
// 6to4, IPv4-mapped) is refused when dialled; the resolver is an
// in-process table, so no packet leaves.
func TestDialControlRefusesNamesResolvingToNonPublicAddresses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	d := net.Dialer{Control: DialControl, Resolver: dnstest.Resolver(namesToNonPublic)}
	for name := range namesToNonPublic {
		if c, err := d.Dial("tcp", net.JoinHostPort(name, port)); !errors.Is(err, ErrNotPublic) {
			if c != nil {
				c.Close()
			}
			t.Errorf("dial %s: %v, want ErrNotPublic", name, err)
		}
	}
	// The same table without the guard does connect: the refusal is the
	// guard's, not a resolution failure.
	open := net.Dialer{Resolver: dnstest.Resolver(dnstest.Hosts{"loop.test.example": {"127.0.0.1"}})}
	c, err := open.Dial("tcp", net.JoinHostPort("loop.test.example", port))
	if err != nil {
		t.Fatalf("unguarded dial: %v", err)
	}
	c.Close()
}

// namesToNonPublic maps a name to each spelling of an address that is not
// public.
var namesToNonPublic = dnstest.Hosts{
	"metadata.test.example":    {"169.254.169.254"},
	"private.test.example":     {"10.0.0.1"},
	"loop.test.example":        {"127.0.0.1"},
	"nat64.test.example":       {"64:ff9b::a9fe:a9fe"}, // 169.254.169.254 through NAT64
	"nat64-local.test.example": {"64:ff9b:1::a00:1"},   // the local-use NAT64 prefix
	"6to4.test.example":        {"2002:a9fe:a9fe::1"},  // 169.254.169.254 through 6to4
	"mapped.test.example":      {"::ffff:169.254.169.254"},
	"mapped10.test.example":    {"::ffff:10.0.0.1"},
	"ula.test.example":         {"fd00::1"},
}

func TestCheckWithAllowPrivate(t *testing.T) {
	o := Options{AllowHTTP: true, AllowPrivate: true}
	for raw, want := range map[string]string{"http://127.0.0.1:8080/hook": "", "http://localhost/x": "", "ftp://127.0.0.1/": "must use http or https",
		"http://u:p@127.0.0.1/": "must not contain credentials"} {
		if got := CheckWith(raw, o); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
	if got := CheckWith("http://127.0.0.1/", Options{AllowPrivate: true}); got != "must use https" {
		t.Errorf("https still required: %q", got)
	}
}
