// Package dnstest gives tests a *net.Resolver that answers from a fixed
// table, in process: code that takes a resolver (a dialer, a URL check)
// can be shown a host name that resolves to any address without a DNS
// server or the network.
package dnstest

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// Hosts maps a host name (without the trailing dot) to its addresses,
// IPv4 or IPv6 ("::ffff:10.0.0.1" is served as an AAAA record).
type Hosts map[string][]string

// Resolver returns a pure-Go resolver whose queries go to an in-memory
// server answering from hosts: A and AAAA records for a listed name,
// NXDOMAIN for any other. /etc/hosts still comes first, so use names
// that are not in it.
func Resolver(hosts Hosts) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go serve(server, hosts)
		return client, nil
	}}
}

// serve answers queries on c until the resolver hangs up. A net.Pipe is
// not a PacketConn, so the resolver frames messages as over TCP: a
// two-byte length before each.
func serve(c net.Conn, hosts Hosts) {
	defer c.Close()
	for {
		var n uint16
		if err := binary.Read(c, binary.BigEndian, &n); err != nil {
			return
		}
		q := make([]byte, n)
		if _, err := io.ReadFull(c, q); err != nil {
			return
		}
		a, err := answer(q, hosts)
		if err != nil {
			return
		}
		if _, err := c.Write(binary.BigEndian.AppendUint16(nil, uint16(len(a)))); err != nil {
			return
		}
		if _, err := c.Write(a); err != nil {
			return
		}
	}
}

// answer builds the response to the query q.
func answer(q []byte, hosts Hosts) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil {
		return nil, err
	}
	question, err := p.Question()
	if err != nil {
		return nil, err
	}
	addrs, known := hosts[strings.TrimSuffix(strings.ToLower(question.Name.String()), ".")]
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(question); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	rr := dnsmessage.ResourceHeader{Name: question.Name, Class: dnsmessage.ClassINET, TTL: 60}
	for _, s := range addrs {
		a := netip.MustParseAddr(s)
		switch {
		case question.Type == dnsmessage.TypeA && a.Is4():
			err = b.AResource(rr, dnsmessage.AResource{A: a.As4()})
		case question.Type == dnsmessage.TypeAAAA && a.Is6():
			err = b.AAAAResource(rr, dnsmessage.AAAAResource{AAAA: a.As16()})
		}
		if err != nil {
			return nil, err
		}
	}
	return b.Finish()
}
