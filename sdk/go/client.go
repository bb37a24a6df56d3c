// Package kyc is the official Go SDK of the KYC field-verification API
// (/api/v1): the client generated from api/openapi.yaml (package kycapi,
// reached as Client.API) and a small layer on top of it: an API key, a
// base URL and a timeout; typed errors (*Error) from the error envelope;
// retries with an Idempotency-Key; paginators for customers and events;
// and webhook signature verification (Standard Webhooks).
//
//	c, err := kyc.New(kyc.Config{APIKey: os.Getenv("KYC_API_KEY"), BaseURL: "https://api.example.com"})
//	customer, err := c.CreateCustomer(ctx, kycapi.CustomerCreate{...})
//	for customer, err := range c.Customers(ctx, kycapi.ListCustomersParams{}) { ... }
package kyc

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/kycfield/kyc/sdk/go/kycapi"
)

// Config configures a Client. APIKey and BaseURL are required.
type Config struct {
	// APIKey is an mk_test_ (sandbox) or mk_live_ (live) key.
	APIKey string
	// BaseURL is the gateway, e.g. https://api.example.com (no /api/v1).
	BaseURL string
	// Timeout bounds each attempt of a call (default 30 s); a context
	// deadline bounds the call with its retries.
	Timeout time.Duration
	// MaxRetries is how many times a failed attempt is repeated (default 3;
	// negative: never).
	MaxRetries int
	// MaxRetryWait is the longest Retry-After the client waits out itself
	// (default 60 s); an answer asking for longer is returned as an *Error.
	MaxRetryWait time.Duration
	// HTTPClient sends the requests (default: a new http.Client); its
	// Timeout is replaced by Timeout.
	HTTPClient *http.Client
}

// Client calls the API with one key. It is safe for concurrent use.
type Client struct {
	// API is the generated client, with this Client's key, retries and
	// timeouts: every operation of /api/v1, typed. kyc.Check turns its
	// failed answers into *Error.
	API *kycapi.ClientWithResponses

	retrier *retrier
}

// New makes a Client.
func New(cfg Config) (*Client, error) {
	if cfg.APIKey == "" {
		return nil, errors.New("kyc: Config.APIKey is required")
	}
	if cfg.BaseURL == "" {
		return nil, errors.New("kyc: Config.BaseURL is required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 3
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = time.Minute
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		copied := *cfg.HTTPClient
		hc = &copied
	}
	hc.Timeout = cfg.Timeout
	doer := &retrier{client: hc, maxRetries: cfg.MaxRetries, maxWait: cfg.MaxRetryWait, sleep: sleepCtx}
	auth := "Bearer " + cfg.APIKey
	api, err := kycapi.NewClientWithResponses(strings.TrimRight(cfg.BaseURL, "/"),
		kycapi.WithHTTPClient(doer),
		kycapi.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", auth)
			req.Header.Set("User-Agent", "kyc-go-sdk")
			return nil
		}))
	if err != nil {
		return nil, err
	}
	return &Client{API: api, retrier: doer}, nil
}

// CreateCustomer creates a customer (POST /api/v1/customers) and starts its
// verification. A key with kyc:read gets the whole customer back; a
// write-only key's answer is a receipt, of which only ID, Status and
// UpdatedAt are set here.
func (c *Client) CreateCustomer(ctx context.Context, body kycapi.CustomerCreate) (*kycapi.Customer, error) {
	res, err := Check(c.API.CreateCustomerWithResponse(ctx, nil, body))
	if err != nil {
		return nil, err
	}
	customer, err := res.JSON201.Data.AsCustomer()
	if err != nil {
		return nil, err
	}
	return &customer, nil
}

// Customer reads one customer (GET /api/v1/customers/{id}).
func (c *Client) Customer(ctx context.Context, id string) (*kycapi.Customer, error) {
	res, err := Check(c.API.GetCustomerWithResponse(ctx, id, nil))
	if err != nil {
		return nil, err
	}
	return &res.JSON200.Data, nil
}

// VerificationStatus reads a customer's verification progress
// (GET /api/v1/verification/{customerId}/status).
func (c *Client) VerificationStatus(ctx context.Context, customerID string) (*kycapi.VerificationStatus, error) {
	res, err := Check(c.API.GetVerificationStatusWithResponse(ctx, customerID, nil))
	if err != nil {
		return nil, err
	}
	return &res.JSON200.Data, nil
}

// Event reads one event (GET /api/v1/events/{id}), the body its webhook
// deliveries carry.
func (c *Client) Event(ctx context.Context, id string) (*kycapi.Event, error) {
	res, err := Check(c.API.GetEventWithResponse(ctx, id, nil))
	if err != nil {
		return nil, err
	}
	return &res.JSON200.Data, nil
}
