package keys

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/principal"
)

// AuthBilling resolves keys and dashboard sessions over auth-billing's
// internal API.
type AuthBilling struct {
	BaseURL string
	Signer  *principal.Signer
	HTTP    *http.Client // each call is bounded by resolveTimeout
}

// resolveTimeout bounds one lookup: a request waiting on it is a request
// waiting to be authenticated.
const resolveTimeout = 3 * time.Second

// Errors of ResolveSession.
var (
	// ErrNoSession means the cookie names no live session.
	ErrNoSession = errors.New("no dashboard session")
	// ErrCSRF means the session is live but the CSRF token is wrong.
	ErrCSRF = errors.New("invalid CSRF token")
)

// Resolve implements Source.
func (a *AuthBilling) Resolve(ctx context.Context, hash string) (KeyState, OrgState, error) {
	var out struct {
		Key KeyState `json:"key"`
		Org OrgState `json:"organization"`
	}
	status, err := a.call(ctx, apikey.ResolvePath, map[string]string{"hash": hash}, &out)
	switch {
	case err != nil:
		return KeyState{}, OrgState{}, err
	case status == http.StatusNotFound:
		return KeyState{}, OrgState{}, ErrNotFound
	case status != http.StatusOK:
		return KeyState{}, OrgState{}, fmt.Errorf("keys: auth-billing answered %d", status)
	}
	return out.Key, out.Org, nil
}

// ResolveSession checks a dashboard session and its CSRF token. It is
// not cached: a log-out must end the page's access at once, and people
// clicking through a dashboard are a trickle next to API traffic.
func (a *AuthBilling) ResolveSession(ctx context.Context, token, csrf string) (apikey.SessionState, OrgState, error) {
	var out struct {
		Session apikey.SessionState `json:"session"`
		Org     OrgState            `json:"organization"`
	}
	status, err := a.call(ctx, apikey.SessionResolvePath, map[string]string{"token": token, "csrfToken": csrf}, &out)
	switch {
	case err != nil:
		return apikey.SessionState{}, OrgState{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	case status == http.StatusUnauthorized:
		return apikey.SessionState{}, OrgState{}, ErrNoSession
	case status == http.StatusForbidden:
		return apikey.SessionState{}, OrgState{}, ErrCSRF
	case status != http.StatusOK:
		return apikey.SessionState{}, OrgState{}, fmt.Errorf("%w: auth-billing answered %d", ErrUnavailable, status)
	}
	return out.Session, out.Org, nil
}

// ResolveStaff checks an operations staff session and its CSRF token,
// uncached for the same reason as ResolveSession: signing out or
// disabling a staff member ends their access at once.
func (a *AuthBilling) ResolveStaff(ctx context.Context, token, csrf string) (principal.StaffState, error) {
	var out struct {
		Staff principal.StaffState `json:"staff"`
	}
	status, err := a.call(ctx, principal.StaffResolvePath, map[string]string{"token": token, "csrfToken": csrf}, &out)
	switch {
	case err != nil:
		return principal.StaffState{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	case status == http.StatusUnauthorized:
		return principal.StaffState{}, ErrNoSession
	case status == http.StatusForbidden:
		return principal.StaffState{}, ErrCSRF
	case status != http.StatusOK:
		return principal.StaffState{}, fmt.Errorf("%w: auth-billing answered %d", ErrUnavailable, status)
	}
	if out.Staff.ID == "" || !out.Staff.Role.Valid() {
		return principal.StaffState{}, fmt.Errorf("%w: auth-billing answered a staff session without id or role", ErrUnavailable)
	}
	return out.Staff, nil
}

// call POSTs body to one of auth-billing's internal paths as the gateway
// and decodes the envelope's data of a 200 into out.
func (a *AuthBilling) call(ctx context.Context, path string, body, out any) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.BaseURL+path, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(principal.Header, a.Signer.Sign(principal.Principal{Kind: principal.KindGateway}, http.MethodPost, path))
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	env := struct {
		Data any `json:"data"`
	}{Data: out}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return 0, fmt.Errorf("keys: decode: %w", err)
	}
	return resp.StatusCode, nil
}
