// Package faultproxy is a loopback TCP proxy for tests that break a
// dependency the ways production does, without touching the shared
// server other tests use:
//   - Pause holds every byte in both directions while still accepting
//     connections: a hung Redis (a long fork or script, a failover, a
//     black-holed network);
//   - Cut closes every open connection at once, so clients see a reset or
//     EOF mid-query: a server restart or a network blip;
//   - Refuse closes each new connection as soon as it is accepted: the
//     server is down.
package faultproxy

import (
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

	mu     sync.Mutex
	resume chan struct{} // nil when running; closed by Resume
	conns  map[net.Conn]struct{}
	closed bool
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
	t.Cleanup(p.close)
	return p
}

// Addr is the address clients dial.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Pause stops forwarding: bytes already read wait, nothing new arrives.
func (p *Proxy) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resume == nil {
		p.resume = make(chan struct{})
	}
}

// Resume forwards again, including what was held back.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resume != nil {
		close(p.resume)
		p.resume = nil
	}
}

// Cut closes every open connection, both sides, and returns how many
// client connections it broke.
func (p *Proxy) Cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.conns)
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
	return n / 2 // each client connection has its upstream twin
}

// Refuse makes new connections fail at once (true) or forward again
// (false). Open connections are untouched: Cut them too for an outage.
func (p *Proxy) Refuse(on bool) { p.refusing.Store(on) }

// gate blocks while the proxy is paused; false means it was closed
// meanwhile and what was held back must be dropped.
func (p *Proxy) gate() bool {
	p.mu.Lock()
	ch := p.resume
	p.mu.Unlock()
	if ch != nil {
		<-ch
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.closed
}

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
		go p.serve(c)
	}
}

func (p *Proxy) serve(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	if !p.track(client, server) {
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pipe(server, client) }()
	go func() { defer wg.Done(); p.pipe(client, server) }()
	wg.Wait()
	p.untrack(client, server)
}

// pipe copies src to dst, holding each chunk while paused, and closes both
// ends when either side is done so the other copy ends too (neither end
// waits on a half-open pair).
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.gate() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
	}
}

// close stops listening, closes every connection and drops what was held
// back (so nothing reaches the server after the test has cleaned up).
func (p *Proxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.Resume()
}
