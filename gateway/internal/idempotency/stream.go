package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"sync"
)

// StreamedBody fingerprints an upload as it is forwarded, so an upload
// with an Idempotency-Key costs a hash, not a buffer of its size.
//
// A multipart body is fingerprinted by its parts (each part's form name,
// file name and bytes), not by its raw bytes: curl and most HTTP libraries
// draw a new random boundary every time they build a form, and a client
// retrying the same file that way sends the same request. A body that is
// not well-formed multipart is fingerprinted by its raw bytes.
//
// The parts are parsed in the same pass that feeds the transport: Read
// advances the parser, which pulls from the client only what it needs (at
// most its few KiB of look-ahead), and hands the transport exactly the
// bytes the parser consumed. No goroutine, no buffer of the file.
type StreamedBody struct {
	prefix  []byte       // method and path, as in Fingerprint
	raw     hash.Hash    // every byte of the body
	parts   hash.Hash    // form name, file name and content hash per part
	pending bytes.Buffer // pulled from the client, not yet given to the transport
	src     io.Reader    // the client's body, teed into pending and raw
	mr      *multipart.Reader
	part    *multipart.Part
	partSum hash.Hash
	parsed  bool  // the parts ran to the closing boundary
	srcErr  error // io.EOF once the client's body is all read

	closed chan struct{}
	once   sync.Once
}

// NewStreamedBody starts the fingerprint of a request body of the given
// Content-Type sent with method to path.
func NewStreamedBody(method, path, contentType string) *StreamedBody {
	b := &StreamedBody{prefix: []byte(method + " " + path + "\n"), raw: sha256.New(), parts: sha256.New(), closed: make(chan struct{})}
	b.raw.Write(b.prefix)
	b.parts.Write(b.prefix)
	b.parts.Write([]byte("multipart\n"))
	if mt, params, err := mime.ParseMediaType(contentType); err == nil && mt == "multipart/form-data" && params["boundary"] != "" {
		b.mr = multipart.NewReader(readerFunc(b.pull), params["boundary"])
	}
	return b
}

// Attach makes b read body (nil: nothing to send) and returns what the
// outgoing request should carry. The proxy attaches it to its outgoing
// request, not to the incoming one, because httputil.ReverseProxy hides
// the transport's Close from the incoming body.
func (b *StreamedBody) Attach(body io.ReadCloser) io.ReadCloser {
	if body == nil {
		b.src = bytes.NewReader(nil)
		return nil
	}
	b.src = body
	return b
}

func (b *StreamedBody) Read(p []byte) (int, error) {
	for b.pending.Len() == 0 && b.srcErr == nil {
		b.advance()
	}
	if b.pending.Len() > 0 {
		return b.pending.Read(p)
	}
	return 0, b.srcErr
}

// Close marks the end of the transport's reading; it leaves the body
// open for Sum (the proxy and the server close it when the handler
// returns).
func (b *StreamedBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

// pull reads the client's body for the parser, keeping what it read for
// the transport.
func (b *StreamedBody) pull(p []byte) (int, error) {
	if b.srcErr != nil {
		return 0, b.srcErr
	}
	if b.pending.Len() >= maxLookAhead {
		return 0, errLookAhead // the parser fails, the raw fingerprint stands
	}
	n, err := b.src.Read(p)
	b.raw.Write(p[:n])
	b.pending.Write(p[:n])
	if err != nil {
		b.srcErr = err
	}
	return n, err
}

// advance moves the parser (or, once the parts are done or broken, the
// raw copy) one step, pulling at least one byte or reaching the end.
func (b *StreamedBody) advance() {
	if b.mr == nil {
		var buf [32 << 10]byte
		_, _ = b.pull(buf[:])
		return
	}
	if b.part == nil {
		part, err := b.mr.NextRawPart()
		switch {
		case errors.Is(err, io.EOF):
			b.mr, b.parsed = nil, true
		case err != nil:
			b.mr = nil // not well-formed: the raw fingerprint stands
		default:
			b.part, b.partSum = part, sha256.New()
		}
		return
	}
	var buf [8 << 10]byte
	n, err := b.part.Read(buf[:])
	b.partSum.Write(buf[:n])
	switch {
	case errors.Is(err, io.EOF):
		fmt.Fprintf(b.parts, "%q %q %x\n", b.part.FormName(), b.part.FileName(), b.partSum.Sum(nil))
		b.part = nil
	case err != nil:
		b.mr, b.part = nil, nil
	}
}

// Sum waits until the transport is done with the body, reads the rest of
// it and returns the fingerprint. An error (the client went away, the body
// broke the size limit) means there is no fingerprint to keep.
func (b *StreamedBody) Sum(ctx context.Context) (string, error) {
	select {
	case <-b.closed:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return b.Drain()
}

// Drain reads the whole body through the fingerprint, for a retry that is
// answered without reaching the service.
func (b *StreamedBody) Drain() (string, error) {
	for b.mr != nil || b.srcErr == nil { // the parser may hold the closing boundary
		b.advance()
		b.pending.Reset()
	}
	if !errors.Is(b.srcErr, io.EOF) {
		return "", b.srcErr
	}
	if b.parsed {
		return Sum(b.parts), nil
	}
	return Sum(b.raw), nil
}

// maxLookAhead bounds what the parser may pull before the transport gets
// it: a preamble or part header longer than this (the parser reads them
// whole) is not worth parsing, and the raw bytes fingerprint the body.
const maxLookAhead = 64 << 10

var errLookAhead = errors.New("idempotency: multipart look-ahead exceeded")

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
