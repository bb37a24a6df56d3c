package pdfsig_test

import (
	"bytes"
	"testing"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"github.com/digitorus/pdfsign/verify"

	"github.com/kycfield/kyc/services/reporting/internal/pdfsig"
)

func document(t *testing.T, text string) []byte {
	t.Helper()
	f := fpdf.New("P", "mm", "A4", "")
	f.SetCompression(false) // so the test can find and change the text
	f.AddPage()
	f.SetFont("Helvetica", "", 12)
	f.Text(20, 20, text)
	var b bytes.Buffer
	if err := f.Output(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func check(t *testing.T, doc []byte) *verify.Response {
	t.Helper()
	opts := verify.DefaultVerifyOptions()
	opts.AllowUntrustedRoots = true // the test's key is self-signed
	resp, err := verify.VerifyWithOptions(bytes.NewReader(doc), int64(len(doc)), opts)
	if err != nil {
		return &verify.Response{Error: err.Error()}
	}
	return resp
}

// A signed report verifies with the platform's certificate as signer; a
// report changed by one byte afterwards does not.
func TestSignedReportVerifiesAndATamperedOneDoesNot(t *testing.T) {
	s, err := pdfsig.Ephemeral("KYC platform (test)")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 9, 31, 0, 0, time.UTC)
	signed, err := s.Sign(document(t, "VERIFIED Adebisi"), at, "KYC platform", "Field verification report")
	if err != nil {
		t.Fatal(err)
	}
	resp := check(t, signed)
	if resp.Error != "" || len(resp.Signers) != 1 || !resp.Signers[0].ValidSignature {
		t.Fatalf("signed report: %+v", resp)
	}
	if got := resp.Signers[0].Certificates[0].Certificate.Subject.CommonName; got != "KYC platform (test)" {
		t.Errorf("signer certificate %q", got)
	}
	i := bytes.Index(signed, []byte("VERIFIED"))
	if i < 0 {
		t.Fatal("text not found in the file")
	}
	tampered := bytes.Clone(signed)
	copy(tampered[i:], "REJECTED")
	if r := check(t, tampered); r.Error == "" && len(r.Signers) == 1 && r.Signers[0].ValidSignature {
		t.Fatal("a report changed after signing still verifies")
	}
}

// A configured key and certificate (PEM) sign in the certificate's name.
func TestLoadRefusesWhatIsNotAKeyPair(t *testing.T) {
	for name, tc := range map[string][2]string{
		"empty":        {"", ""},
		"no key":       {"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", ""},
		"garbage cert": {"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"},
	} {
		if _, err := pdfsig.Load([]byte(tc[0]), []byte(tc[1])); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}
