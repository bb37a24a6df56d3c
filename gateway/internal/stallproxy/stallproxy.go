// Package stallproxy is a loopback TCP proxy for tests that can stall:
// while paused it still accepts connections but forwards nothing in either
// direction, which is how a hung Redis (a long fork or script, a failover,
// a black-holed network) looks to its clients. Tests put it in front of
// the real Redis instead of pausing the shared server itself.
package stallproxy

import (
	"net"
	"sync"
	"testing"
)

// Proxy forwards connections to a target address until paused.
type Proxy struct {
	ln     net.Listener
	target string

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
		go p.serve(c)
	}
}

func (p *Proxy) serve(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
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
// ends when either side is done so the other copy ends too.
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
			c.Close()
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
// back (so nothing reaches Redis after the test has cleaned up its keys).
func (p *Proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.Resume()
}
