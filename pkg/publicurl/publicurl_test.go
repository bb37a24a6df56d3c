package publicurl

import (
	"net"
	"net/url"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	cases := []struct {
		url       string
		allowHTTP bool
		want      string // "" accepted
	}{
		{"https://files.example.com/id.pdf", false, ""},
		{"http://files.example.com/id.pdf", true, ""},
		{"http://files.example.com/id.pdf", false, "must use https"},
		{"ftp://files.example.com/x", true, "must use http or https"},
		{"/relative/path", false, "must be an absolute URL"},
		{"https://" + strings.Repeat("a", MaxLength) + ".com/", false, "must be at most 2048 characters"},
		{"https://user:pw@files.example.com/x", false, "must not contain credentials"},
		{"https://127.0.0.1/x", false, "must point to a public host"},
		{"https://10.1.2.3/x", false, "must point to a public host"},
		{"https://192.168.0.10/x", false, "must point to a public host"},
		{"https://169.254.169.254/latest/meta-data", false, "must point to a public host"},
		{"https://[::1]/x", false, "must point to a public host"},
		{"https://[fd00::1]/x", false, "must point to a public host"},
		{"https://[::ffff:127.0.0.1]/x", false, "must point to a public host"},
		{"https://100.64.0.1/x", false, "must point to a public host"},
		{"https://0.0.0.0/x", false, "must point to a public host"},
		{"https://198.18.0.1/x", false, "must point to a public host"},
		{"https://240.0.0.1/x", false, "must point to a public host"},
		{"https://localhost/x", false, "must point to a public host"},
		{"https://LOCALHOST./x", false, "must point to a public host"},
		{"https://api.localhost/x", false, "must point to a public host"},
		{"https://metadata.google.internal/x", false, "must point to a public host"},
		{"https://printer.local/x", false, "must point to a public host"},
		{"https://intranet/x", false, "must point to a public host"},
		{"https://0x7f.0.0.1/x", false, "must point to a public host"},
		{"https://0177.0.0.1/x", false, "must point to a public host"},
		{"https://2130706433/x", false, "must point to a public host"},
		{"https://[64:ff9b::a9fe:a9fe]/latest/meta-data", false, "must point to a public host"},
		{"https://[64:ff9b::a00:1]/x", false, "must point to a public host"},
		{"https://[2002:a9fe:a9fe::1]/x", false, "must point to a public host"},
		{"https://[2002:808:808::1]/x", false, "must point to a public host"},
		{"https://[::ffff:169.254.169.254]/x", false, "must point to a public host"},
		{"https://[::ffff:10.0.0.1]/x", false, "must point to a public host"},
		{"https://[::ffff:a9fe:a9fe]/x", false, "must point to a public host"},
		{"https://192.0.2.1/x", false, "must point to a public host"},
		{"https://[2001:db8::1]/x", false, "must point to a public host"},
		{"https://8.8.8.8/x", false, ""},
		{"https://[2001:4860:4860::8888]/x", false, ""},
		{"https://cafe.example/x", false, ""},
	}
	for _, c := range cases {
		if got := Check(c.url, c.allowHTTP); got != c.want {
			t.Errorf("Check(%q, http=%v) = %q, want %q", c.url, c.allowHTTP, got, c.want)
		}
	}
}

func TestIsPublicIP(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8": true, "1.1.1.1": true, "2001:4860:4860::8888": true,
		"127.0.0.1": false, "10.0.0.1": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.1.1": false,
		"100.64.0.1": false, "100.127.255.255": false, "100.128.0.1": true, "0.1.2.3": false, "192.0.0.8": false,
		"198.18.0.1": false, "198.19.255.255": false, "198.20.0.1": true, "224.0.0.1": false, "255.255.255.255": false,
		"::1": false, "::": false, "fe80::1": false, "fc00::1": false, "ff02::1": false,
		"169.254.169.254": false, "::ffff:169.254.169.254": false, "::ffff:10.0.0.1": false, "::ffff:8.8.8.8": true,
		"64:ff9b::a9fe:a9fe": false, "64:ff9b::808:808": false, "64:ff9b:1::1": false, "2002:a9fe:a9fe::1": false,
		"2002:808:808::1": false, "2001:db8::1": false, "192.0.2.1": false, "198.51.100.1": false, "203.0.113.1": false,
	} {
		if got := IsPublicIP(net.ParseIP(s)); got != want {
			t.Errorf("IsPublicIP(%s) = %v, want %v", s, got, want)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"https://example.com/a", "https://127.0.0.1/", "http://[::1]:80/", "https://0x7f.0.0.1/", "https://0177.1/", "https://[2001:4860::1]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if Check(in, true) != "" {
			return
		}
		u, err := url.Parse(in)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
			t.Fatalf("accepted %q", in)
		}
		host := strings.ToLower(u.Hostname())
		ip := net.ParseIP(host)
		if (ip != nil && !IsPublicIP(ip)) || host == "localhost" || (ip == nil && !strings.Contains(host, ".")) {
			t.Fatalf("accepted non-public host in %q", in)
		}
		if Check(in, false) != "" && u.Scheme == "https" {
			t.Fatalf("%q accepted with http allowed but not without, though it is https", in)
		}
	})
}
