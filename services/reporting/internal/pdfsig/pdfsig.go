// Package pdfsig signs reports with the platform's key: a PKCS#7
// certification signature (digitorus/pdfsign) that forbids later changes,
// so any PDF reader shows whether the file is as we issued it, without
// asking our verify endpoint.
package pdfsig

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/digitorus/pdf"
	"github.com/digitorus/pdfsign/sign"
)

// Signer holds the platform's report-signing key and certificate.
type Signer struct {
	key   crypto.Signer
	cert  *x509.Certificate
	chain []*x509.Certificate
	// Ephemeral is true for a key made at start-up because none was
	// configured: signatures are valid but no reader can trust them.
	Ephemeral bool
}

// Load reads a PEM certificate (the signing certificate first, then its
// issuers) and its PEM private key (PKCS#8, EC or PKCS#1).
func Load(certPEM, keyPEM []byte) (*Signer, error) {
	var chain []*x509.Certificate
	for rest := certPEM; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("report signing certificate: %w", err)
		}
		chain = append(chain, c)
	}
	if len(chain) == 0 {
		return nil, errors.New("report signing certificate: no CERTIFICATE block")
	}
	b, _ := pem.Decode(keyPEM)
	if b == nil {
		return nil, errors.New("report signing key: no PEM block")
	}
	key, err := parseKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("report signing key: %w", err)
	}
	return &Signer{key: key, cert: chain[0], chain: chain}, nil
}

func parseKey(der []byte) (crypto.Signer, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, errors.New("PKCS#8 key cannot sign")
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return x509.ParsePKCS1PrivateKey(der)
}

// Ephemeral makes a self-signed P-256 key for a process that was given
// none (local runs and tests), valid a year from now.
func Ephemeral(commonName string) (*Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: commonName, Organization: []string{"KYC field verification"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0),
		KeyUsage:           x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		UnknownExtKeyUsage: []asn1.ObjectIdentifier{documentSigning}}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &Signer{key: key, cert: cert, chain: []*x509.Certificate{cert}, Ephemeral: true}, nil
}

// documentSigning is the Document Signing extended key usage (RFC 9336),
// which PDF readers look for in a signer's certificate.
var documentSigning = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 36}

// Certificate is the signing certificate (what a reader shows as the
// signer).
func (s *Signer) Certificate() *x509.Certificate { return s.cert }

// Sign returns doc with a certification signature dated at, made in the
// name of signer for reason.
func (s *Signer) Sign(doc []byte, at time.Time, signer, reason string) ([]byte, error) {
	r := bytes.NewReader(doc)
	rdr, err := pdf.NewReader(r, int64(len(doc)))
	if err != nil {
		return nil, fmt.Errorf("sign report: %w", err)
	}
	var out bytes.Buffer
	err = sign.Sign(r, &out, rdr, int64(len(doc)), sign.SignData{
		Signature: sign.SignDataSignature{
			Info:       sign.SignDataSignatureInfo{Name: signer, Reason: reason, Date: at},
			CertType:   sign.CertificationSignature,
			DocMDPPerm: sign.DoNotAllowAnyChangesPerms,
		},
		Signer: s.key, DigestAlgorithm: crypto.SHA256, Certificate: s.cert,
		CertificateChains: [][]*x509.Certificate{s.chain},
	})
	if err != nil {
		return nil, fmt.Errorf("sign report: %w", err)
	}
	return out.Bytes(), nil
}
