// Package publicurl guards against server-side request forgery: it
// accepts only absolute http(s) URLs on a public host, so a URL a client
// hands us (a document link, a webhook endpoint) cannot make a service
// call into its own network.
package publicurl

import (
	"net"
	"net/netip"
	"net/url"
	"strings"

	"code.dny.dev/ssrf"
)

// MaxLength is the longest URL accepted.
const MaxLength = 2048

// Check refuses URLs that are not absolute http(s) URLs on a public host:
// no credentials, no localhost, no private, loopback, link-local or
// otherwise non-public IP literals, no dotless or numeric host names. Plain
// http is accepted only when allowHTTP is set (sandbox). It returns the
// problem as a field message ("must use https"), or "" when raw is fine.
//
// Check looks at the URL only; a client that calls the URL must still
// check the addresses its host name resolves to with IsPublicIP.
func Check(raw string, allowHTTP bool) string {
	return CheckWith(raw, Options{AllowHTTP: allowHTTP})
}

// Options relax Check.
type Options struct {
	// AllowHTTP accepts plain http (sandbox).
	AllowHTTP bool
	// AllowPrivate accepts loopback, private and other non-public hosts:
	// a deployment setting for local runs and tests, never production.
	AllowPrivate bool
}

// CheckWith is Check with every relaxation spelled out.
func CheckWith(raw string, o Options) string {
	allowHTTP := o.AllowHTTP
	if len(raw) > MaxLength {
		return "must be at most 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || !u.IsAbs() {
		return "must be an absolute URL"
	}
	if u.Scheme != "https" && !(allowHTTP && u.Scheme == "http") {
		if allowHTTP {
			return "must use http or https"
		}
		return "must use https"
	}
	if u.User != nil {
		return "must not contain credentials"
	}
	if o.AllowPrivate {
		return ""
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".internal") || strings.HasSuffix(host, ".local") {
		return "must point to a public host"
	}
	if ip := net.ParseIP(host); ip != nil {
		if !IsPublicIP(ip) {
			return "must point to a public host"
		}
		return ""
	}
	// 0x7f.1, 0177.0.0.1 and friends are IP addresses some resolvers
	// accept; a dotless name resolves only inside some network.
	if numericHost(host) || !strings.Contains(host, ".") {
		return "must point to a public host"
	}
	return ""
}

// numericHost reports whether every label of host is a decimal, octal or
// hex number, i.e. an IP address in a non-canonical spelling.
func numericHost(host string) bool {
	for _, label := range strings.Split(host, ".") {
		l := strings.TrimPrefix(label, "0x")
		if l == "" || strings.Trim(l, "0123456789abcdef") != "" || (l == label && strings.Trim(l, "0123456789") != "") {
			return false
		}
	}
	return true
}

// guard holds the address rules: every prefix in the IANA IPv4 and IPv6
// special-purpose registries (loopback, private, link-local, shared,
// documentation, benchmarking, 6to4, ...), everything outside IPv6
// global unicast (so NAT64 64:ff9b::/96 and IPv4-mapped addresses, which
// reach IPv4 targets such as the metadata address), and multicast. The
// library is regenerated from the registries, which a hand-written list
// is not. Any port: a lender's endpoint may listen on 8443. A Guardian is
// immutable and safe for concurrent use.
var guard = ssrf.New(ssrf.WithAnyPort())

// IsPublicIP reports whether ip is a globally routable unicast address.
func IsPublicIP(ip net.IP) bool {
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return false
	}
	// net.ParseIP keeps IPv4 in 16 bytes; an IPv4 address is judged by
	// the IPv4 registry (169.254.169.254 and ::ffff:169.254.169.254 alike).
	return guard.SafeAddr(a.Unmap()) == nil
}
