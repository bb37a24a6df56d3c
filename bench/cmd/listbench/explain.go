package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"log"
	"net"
	"net/url"
	"strings"
	"sync"
)

// explainOptions make every statement of a connection report its plan,
// as EXPLAIN (ANALYZE, BUFFERS) would print it, in a NOTICE to the client
// (auto_explain from postgresql-contrib, loaded for this connection only).
const explainOptions = "-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0" +
	" -c auto_explain.log_analyze=on -c auto_explain.log_buffers=on -c auto_explain.log_timing=on" +
	" -c auto_explain.log_level=notice -c client_min_messages=notice"

// planTap is a PostgreSQL wire-protocol relay between the customer service
// and the server that keeps the auto_explain notices going back to the
// service (its driver drops notices). So the plans printed are those of
// the service's own statements with its own parameters, not of a copy of
// its SQL kept here.
type planTap struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	on    bool
	plans []string
}

// newPlanTap listens on loopback and returns the tap and the database URL
// that reaches dbURL's database through it with auto_explain on.
func newPlanTap(dbURL string) (*planTap, string, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	t := &planTap{ln: ln, target: u.Host}
	go t.accept()
	q := u.Query()
	q.Set("sslmode", "disable") // the relay reads plain protocol messages
	q.Set("options", explainOptions)
	// pgx reads "+" in a URL as itself, not as a space.
	u.Host, u.RawQuery = ln.Addr().String(), strings.ReplaceAll(q.Encode(), "+", "%20")
	return t, u.String(), nil
}

// Close stops accepting connections.
func (t *planTap) Close() error { return t.ln.Close() }

// collect starts keeping the plans of statements on customers.
func (t *planTap) collect() {
	t.mu.Lock()
	t.on, t.plans = true, nil
	t.mu.Unlock()
}

// take stops collecting and returns the plans seen since collect.
func (t *planTap) take() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.plans
	t.on, t.plans = false, nil
	return p
}

func (t *planTap) accept() {
	for {
		c, err := t.ln.Accept()
		if err != nil {
			return
		}
		go t.relay(c)
	}
}

func (t *planTap) relay(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", t.target)
	if err != nil {
		log.Printf("plan tap: %v", err)
		return
	}
	defer server.Close()
	go func() {
		_, _ = io.Copy(server, client)
		_ = server.Close()
	}()
	// Server to client: every message is a type byte and a length that
	// counts itself (sslmode=disable, so no one-byte SSL answer comes
	// first).
	r := bufio.NewReader(server)
	hdr := make([]byte, 5)
	for {
		if _, err := io.ReadFull(r, hdr); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(hdr[1:])-4)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		if hdr[0] == 'N' {
			t.notice(body)
		}
		if _, err := client.Write(append(hdr, body...)); err != nil {
			return
		}
		hdr = make([]byte, 5)
	}
}

// notice keeps the message field ('M') of an auto_explain notice about
// a customer table.
func (t *planTap) notice(body []byte) {
	for len(body) > 1 {
		code := body[0]
		end := bytes.IndexByte(body[1:], 0)
		if end < 0 {
			return
		}
		field := string(body[1 : 1+end])
		body = body[2+end:]
		if code != 'M' || !strings.Contains(field, "Query Text:") || !strings.Contains(field, "customer") {
			continue
		}
		t.mu.Lock()
		if t.on {
			t.plans = append(t.plans, field)
		}
		t.mu.Unlock()
	}
}
