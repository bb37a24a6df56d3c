package publicurl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
)

// ErrNotPublic is returned when a host is, or resolves to, an address
// that is not public.
var ErrNotPublic = errors.New("publicurl: address is not public")

// Resolver is the part of *net.Resolver Resolve needs (tests give a
// fixed table).
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Resolve checks that every address host resolves to is public: a name
// with one private address among public ones is refused, since a client
// may connect to any of them. An IP literal is checked as it is.
func Resolve(ctx context.Context, r Resolver, host string) error {
	if ip := net.ParseIP(host); ip != nil {
		if !IsPublicIP(ip) {
			return ErrNotPublic
		}
		return nil
	}
	addrs, err := r.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("publicurl: resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return fmt.Errorf("publicurl: %s has no address", host)
	}
	for _, a := range addrs {
		if !IsPublicIP(a.IP) {
			return ErrNotPublic
		}
	}
	return nil
}

// DialControl is a net.Dialer Control function refusing connections to
// addresses that are not public (the rules of IsPublicIP) and to anything
// but TCP. It runs after name resolution, on the address actually
// dialled, so a name that resolved to a public address at registration
// and to a private one now (DNS rebinding) is refused before a packet
// leaves.
func DialControl(network, address string, c syscall.RawConn) error {
	if err := guard.Safe(network, address, c); err != nil {
		return fmt.Errorf("%w: %w", ErrNotPublic, err)
	}
	return nil
}
