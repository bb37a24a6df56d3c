package principal

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// Client calls another service directly (not through the gateway) as
// KindService for one organization and environment: the called service
// scopes what it answers exactly as for that tenant's own requests.
type Client struct {
	// BaseURL is the other service's own address.
	BaseURL string
	Signer  *Signer
	HTTP    *http.Client
}

// Do sends method to path (already escaped) as a service of orgID and env.
func (c Client) Do(ctx context.Context, method, path, orgID, env string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, nil)
	if err != nil {
		return nil, err
	}
	p := Principal{Kind: KindService, OrgID: orgID, Env: Env(env)}
	req.Header.Set(Header, c.Signer.Sign(p, req.Method, req.URL.EscapedPath()))
	return c.HTTP.Do(req)
}

// Exists asks whether path is there for orgID and env: true for a 2xx,
// false for a 404, an error for anything else (the other service is down,
// or refused the call).
func (c Client) Exists(ctx context.Context, path, orgID, env string) (bool, error) {
	resp, err := c.Do(ctx, http.MethodHead, path, orgID, env)
	if err != nil {
		return false, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch {
	case resp.StatusCode/100 == 2:
		return true, nil
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	}
	return false, fmt.Errorf("HEAD %s answered %d", path, resp.StatusCode)
}

// Finder asks another service whether one resource is there for a
// tenant: Exists of Path(id). It satisfies the small ports services
// declare for "is this customer still there" checks.
type Finder struct {
	Client
	// Path is the resource's escaped path on the other service.
	Path func(id string) string
}

// Exists reports whether the resource id is there for orgID and env.
func (f Finder) Exists(ctx context.Context, orgID, env, id string) (bool, error) {
	return f.Client.Exists(ctx, f.Path(id), orgID, env)
}
