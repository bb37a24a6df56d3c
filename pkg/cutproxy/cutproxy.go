// Package cutproxy is a loopback TCP proxy for tests that can break a
// dependency's connections the way a server restart or a network blip
// does: Cut closes every connection through it at once (clients see a
// reset or EOF mid-query), and while Refusing it closes each new
// connection as soon as it is accepted (the server is down). Tests put
// it between a service and the shared PostgreSQL instead of restarting
// the server other tests are using.
package cutproxy

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy forwards connections to a target address.
type Proxy struct {
	ln       net.Listener
	target   string
	refusing atomic.Bool

	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// Start listens on a loopback port and forwards to target; the proxy is
// closed when the test ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.Cut() })
	return p
}

// Addr is the address clients dial.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every open connection, both sides, and returns how many
// client connections it broke.
func (p *Proxy) Cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
		n++
	}
	return n / 2 // each client connection has its upstream twin
}

// Refuse makes new connections fail at once (true) or forward again
// (false). Open connections are untouched: Cut them too for an outage.
func (p *Proxy) Refuse(on bool) { p.refusing.Store(on) }

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.refusing.Load() {
			_ = c.Close()
			continue
		}
		go p.forward(c)
	}
}

func (p *Proxy) forward(client net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(up, client)
	go pipe(client, up)
	<-done
	// One side ended: end both, so neither end waits on a half-open pair.
	_ = client.Close()
	_ = up.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, up)
	p.mu.Unlock()
}
