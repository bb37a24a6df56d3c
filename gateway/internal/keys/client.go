package keys

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/principal"
)

// AuthBilling resolves keys over auth-billing's internal API.
type AuthBilling struct {
	BaseURL string
	Signer  *principal.Signer
	HTTP    *http.Client // Resolve bounds each call itself (resolveTimeout)
}

// resolveTimeout bounds one lookup: a request waiting on it is a request
// waiting to be authenticated.
const resolveTimeout = 3 * time.Second

// Resolve implements Source.
func (a *AuthBilling) Resolve(ctx context.Context, hash string) (KeyState, OrgState, error) {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	body, _ := json.Marshal(map[string]string{"hash": hash})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.BaseURL+apikey.ResolvePath, bytes.NewReader(body))
	if err != nil {
		return KeyState{}, OrgState{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(principal.Header, a.Signer.Sign(principal.Principal{Kind: principal.KindGateway}, http.MethodPost, apikey.ResolvePath))
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return KeyState{}, OrgState{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return KeyState{}, OrgState{}, ErrNotFound
	}
	if resp.StatusCode != http.StatusOK {
		return KeyState{}, OrgState{}, fmt.Errorf("keys: auth-billing answered %s", resp.Status)
	}
	var env struct {
		Data struct {
			Key KeyState `json:"key"`
			Org OrgState `json:"organization"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return KeyState{}, OrgState{}, fmt.Errorf("keys: decode: %w", err)
	}
	return env.Data.Key, env.Data.Org, nil
}
