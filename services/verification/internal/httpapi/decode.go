package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// maxJSON bounds agent and admin JSON bodies (the gateway enforces the
// same limit).
const maxJSON = 1 << 20

type agentKey struct{}

// asAgent serves next only with a valid agent session: the gateway hands
// the token on in principal.AgentTokenHeader. It is HTTP middleware, not
// a decoder, because its refusal carries a WWW-Authenticate header.
func asAgent(svc *verification.Service, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, err := svc.Authenticate(r.Context(), r.Header.Get(principal.AgentTokenHeader))
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agent"`)
			envelope.Fail(r.Context(), w, log, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), agentKey{}, a)))
	})
}

func agentOf(ctx context.Context) verification.FieldAgent {
	a, _ := ctx.Value(agentKey{}).(verification.FieldAgent)
	return a
}

// idemOf reads the Idempotency-Key every mutating agent call must carry
// and fingerprints the request it came with.
func idemOf(r *http.Request, body []byte) (verification.Idem, error) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" || len(key) > 255 {
		return verification.Idem{}, apperr.Validation(apperr.Detail{Field: "Idempotency-Key",
			Message: "header is required on every agent change (1-255 characters), so a retry never acts twice"})
	}
	h := sha256.New()
	_, _ = io.WriteString(h, r.Method+" "+r.URL.Path+"\n")
	_, _ = h.Write(body)
	return verification.Idem{Key: key, Fingerprint: hex.EncodeToString(h.Sum(nil))}, nil
}

// readJSON reads a JSON body (kept for the fingerprint) into dst, with
// the same content-type, size and decoding rules as every JSON endpoint.
func readJSON(r *http.Request, dst any) ([]byte, error) {
	b, err := jsonbody.ReadRaw(r, maxJSON)
	if err != nil {
		return nil, err
	}
	return b, jsonbody.Decode(b, dst)
}

// decodeJSON decodes a request that is its JSON body.
func decodeJSON[T any](_ context.Context, r *http.Request) (T, error) {
	var in T
	_, err := readJSON(r, &in)
	return in, err
}

// decodeSignIn decodes a sign-in with the client address the gateway
// vouched for in its principal (never one from the body).
func decodeSignIn(ctx context.Context, r *http.Request) (signIn, error) {
	in, err := decodeJSON[signIn](ctx, r)
	p, _ := principal.From(ctx)
	in.clientIP = p.ClientIP
	return in, err
}

// decodeAgent decodes a request that is the signed-in agent (asAgent).
func decodeAgent(ctx context.Context, _ *http.Request) (verification.FieldAgent, error) {
	return agentOf(ctx), nil
}

func decodeSessionToken(_ context.Context, r *http.Request) (sessionToken, error) {
	return sessionToken(r.Header.Get(principal.AgentTokenHeader)), nil
}

// decodeTaskChange decodes an agent's change of the task in the path: its
// JSON body and its Idempotency-Key (a body problem is reported first).
func decodeTaskChange[In any](ctx context.Context, r *http.Request) (taskChange[In], error) {
	req := taskChange[In]{agent: agentOf(ctx), addressID: r.PathValue("addressId")}
	body, err := readJSON(r, &req.in)
	if err != nil {
		return req, err
	}
	req.idem, err = idemOf(r, body)
	return req, err
}
