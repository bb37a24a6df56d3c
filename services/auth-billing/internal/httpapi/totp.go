package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

type totpCode struct {
	Code string `json:"code" required:"is required: the 6-digit code your authenticator app shows"`
}

func decodeTOTPCode(_ context.Context, r *http.Request) (totpCode, error) {
	var req totpCode
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

// totpEnrolmentView is a new secret to add to an authenticator app
// (schema TOTPEnrolment).
type totpEnrolmentView struct {
	Secret     string `json:"secret"`
	OTPAuthURL string `json:"otpauthUrl"`
	QRCodePNG  []byte `json:"qrCodePng"` // base64 in JSON
}

type totpStateView struct {
	TOTPEnabled bool `json:"totpEnabled"`
}

func enrolTOTPEndpoint(d *account.Dashboard) kitserver.Endpoint[cookieRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, _ cookieRequest) (kitserver.Result, error) {
		e, err := d.EnrolTOTP(ctx, sessionFrom(ctx))
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Status: http.StatusCreated, Message: "Add this secret to your authenticator app, then confirm a code",
			Data: totpEnrolmentView{Secret: e.Secret, OTPAuthURL: e.URL, QRCodePNG: e.QRPNG}}, nil
	})
}

func confirmTOTPEndpoint(d *account.Dashboard) kitserver.Endpoint[totpCode] {
	return kitserver.NewEndpoint(func(ctx context.Context, r totpCode) (kitserver.Result, error) {
		if err := d.ConfirmTOTP(ctx, sessionFrom(ctx), r.Code); err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Two-step sign-in is on", Data: totpStateView{TOTPEnabled: true}}, nil
	})
}

func disableTOTPEndpoint(d *account.Dashboard) kitserver.Endpoint[totpCode] {
	return kitserver.NewEndpoint(func(ctx context.Context, r totpCode) (kitserver.Result, error) {
		if err := d.DisableTOTP(ctx, sessionFrom(ctx), r.Code); err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Two-step sign-in is off", Data: totpStateView{TOTPEnabled: false}}, nil
	})
}

type resetTOTPRequest struct {
	Email string `json:"email" required:"is required"`
}

// RegisterDashboardAdmin mounts the operators' dashboard-user routes under
// /admin/v1 (admin token).
func RegisterDashboardAdmin(mux *http.ServeMux, d *account.Dashboard, adminToken string, log *slog.Logger) {
	admin := func(h http.Handler) http.Handler { return kitserver.RequireAdmin(adminToken, log, h) }
	mux.Handle("POST /admin/v1/users/totp/reset", admin(kitserver.NewHandler(resetTOTPEndpoint(d), decodeResetTOTP, log)))
}

func decodeResetTOTP(_ context.Context, r *http.Request) (resetTOTPRequest, error) {
	var req resetTOTPRequest
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

func resetTOTPEndpoint(d *account.Dashboard) kitserver.Endpoint[resetTOTPRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r resetTOTPRequest) (kitserver.Result, error) {
		u, err := d.ResetTOTP(ctx, r.Email)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Two-step sign-in is off for this user", Data: viewUser(u)}, nil
	})
}
