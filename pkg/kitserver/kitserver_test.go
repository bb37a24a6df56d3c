package kitserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-kit/kit/endpoint"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/logging"
)

type greet struct{ name string }

func decodeGreet(_ context.Context, r *http.Request) (greet, error) {
	name := r.URL.Query().Get("name")
	if name == "" {
		return greet{}, apperr.Validation(apperr.Detail{Field: "name", Message: "is required"})
	}
	return greet{name: name}, nil
}

func serve(t *testing.T, h http.Handler, url string) (int, envelope.Response) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
	var resp envelope.Response
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	return rec.Code, resp
}

func TestNewHandlerDecodesTypedRequestsThroughMiddleware(t *testing.T) {
	var trail []string
	mark := func(s string) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, req any) (any, error) {
				trail = append(trail, s)
				return next(ctx, req)
			}
		}
	}
	calls := 0
	e := NewEndpoint(func(_ context.Context, g greet) (Result, error) {
		calls++
		if g.name == "nobody" {
			return Result{}, apperr.NotFound("Person")
		}
		return Result{Status: http.StatusCreated, Message: "hi", Data: map[string]string{"name": g.name}}, nil
	}, NewInstrumenter(logging.Discard(), noop.NewMeterProvider().Meter("test")).Wrap("greet"), mark("outer"), mark("inner"))
	h := NewHandler(e, decodeGreet, logging.Discard())

	status, resp := serve(t, h, "/?name=Ngozi")
	if status != http.StatusCreated || !resp.Status || resp.Message != "hi" || string(resp.Data) != `{"name":"Ngozi"}` {
		t.Fatalf("ok: %d %+v", status, resp)
	}
	if strings.Join(trail, ",") != "outer,inner" {
		t.Fatalf("middleware order: %v", trail)
	}
	status, resp = serve(t, h, "/")
	if status != http.StatusBadRequest || resp.Error == nil || resp.Error.Code != apperr.CodeValidation || calls != 1 {
		t.Fatalf("decode error: %d %+v (endpoint calls %d)", status, resp, calls)
	}
	status, resp = serve(t, h, "/?name=nobody")
	if status != http.StatusNotFound || resp.Error.Code != apperr.CodeNotFound {
		t.Fatalf("endpoint error: %d %+v", status, resp)
	}
}

func TestCallAndKit(t *testing.T) {
	e := NewEndpoint(func(_ context.Context, g greet) (Result, error) { return Result{Message: "hi " + g.name}, nil })
	if res, err := e.Call(context.Background(), greet{name: "Ada"}); err != nil || res.Message != "hi Ada" {
		t.Fatalf("Call: %+v %v", res, err)
	}
	_, err := e.Kit()(context.Background(), "not a greet")
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.CodeInternal {
		t.Fatalf("wrong request type: %v", err)
	}
}

func TestNewHandlerWritesCookiesAndDefaultsToOK(t *testing.T) {
	e := NewEndpoint(func(_ context.Context, g greet) (Result, error) {
		return Result{Message: "hi", Cookies: []*http.Cookie{{Name: "s", Value: g.name, HttpOnly: true}}}, nil
	})
	rec := httptest.NewRecorder()
	NewHandler(e, decodeGreet, logging.Discard()).ServeHTTP(rec, httptest.NewRequest("GET", "/?name=tok", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Set-Cookie") != "s=tok; HttpOnly" {
		t.Fatalf("%d %v", rec.Code, rec.Header())
	}
}
