package publicurl

import (
	"context"
	"errors"
	"net"
	"testing"
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
	}
}

func TestDialControl(t *testing.T) {
	for addr, ok := range map[string]bool{"93.184.216.34:443": true, "[2606:2800:220:1::1]:443": true, "127.0.0.1:80": false,
		"10.1.2.3:443": false, "169.254.169.254:80": false, "[::1]:80": false, "[::ffff:127.0.0.1]:80": false, "100.64.0.1:80": false,
		"0.0.0.0:80": false, "224.0.0.1:80": false, "nonsense": false} {
		if err := DialControl("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
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
