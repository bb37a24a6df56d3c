package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
)

// api calls the gateway with one sandbox key over a pooled client: the
// harness's own client keeps two idle connections, so at a hundred
// customers a second every poll would open a connection, and the load
// generator shares the machine's two cores with the platform.
type api struct {
	base, key string
	http      *http.Client
}

func newAPI(p *harness.Platform, key string, conns int) *api {
	return &api{base: p.GatewayURL, key: key, http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute}}}
}

// call sends one request and decodes the envelope's data into out (when
// given and the call succeeded). An error is a request that got no
// answer; a status other than 2xx comes back with a nil error.
func (a *api) call(method, path string, body any, header map[string]string, out any) (int, error) {
	st, _, err := a.callHeader(method, path, body, header, out)
	return st, err
}

// callHeader is call that also returns the answer's headers (nil when
// there was no answer).
func (a *api) callHeader(method, path string, body any, header map[string]string, out any) (int, http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.key)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, resp.Header, err
	}
	if out != nil && resp.StatusCode/100 == 2 {
		var env struct{ Data json.RawMessage }
		if err := json.Unmarshal(b, &env); err != nil {
			return resp.StatusCode, resp.Header, fmt.Errorf("%s %s: %w", method, path, err)
		}
		if err := json.Unmarshal(env.Data, out); err != nil {
			return resp.StatusCode, resp.Header, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, resp.Header, nil
}

// sandboxCustomer is the body of customer i: the phone number is what
// the duplicate check compares, so each run numbers its customers.
func sandboxCustomer(i int) map[string]any {
	return map[string]any{"firstName": "Ngozi", "lastName": "Okafor", "phone": fmt.Sprintf("+23481%08d", i),
		"addresses": []map[string]any{{"streetName": "Adeola Odeku Street", "city": "Victoria Island", "state": "Lagos"}}}
}

// verifiedCount is the organization's VERIFIED and total customers in
// the key's environment (GET /api/v1/verification/stats: counters, so a
// constant cost however many customers there are).
func (a *api) verifiedCount() (verified, total int, err error) {
	var s struct{ Total, Verified int }
	st, err := a.call("GET", "/api/v1/verification/stats", nil, nil, &s)
	if err == nil && st != http.StatusOK {
		err = fmt.Errorf("stats: %d", st)
	}
	return s.Verified, s.Total, err
}

// verifiedIDs pages through the VERIFIED customers (cursor pages of 100)
// and returns their ids.
func (a *api) verifiedIDs() (map[string]bool, error) {
	ids := map[string]bool{}
	cursor := ""
	for {
		var page struct {
			Customers []struct {
				ID string `json:"id"`
			} `json:"customers"`
			Pagination struct {
				HasNext    bool   `json:"hasNext"`
				NextCursor string `json:"nextCursor"`
			} `json:"pagination"`
		}
		path := "/api/v1/customers?status=VERIFIED&limit=100"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		st, err := a.call("GET", path, nil, nil, &page)
		if err == nil && st != http.StatusOK {
			err = fmt.Errorf("list: %d", st)
		}
		if err != nil {
			return ids, err
		}
		for _, c := range page.Customers {
			ids[c.ID] = true
		}
		if !page.Pagination.HasNext {
			return ids, nil
		}
		cursor = page.Pagination.NextCursor
	}
}
