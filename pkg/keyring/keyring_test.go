package keyring

import (
	"bytes"
	"encoding/base64"
	"errors"
	"testing"
)

func key(b byte) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, 32)) }

func TestSealOpenAndRotate(t *testing.T) {
	old, err := Parse("k1:"+key(1), "k1")
	if err != nil {
		t.Fatal(err)
	}
	sealed := old.Seal([]byte("22212345678"), []byte("cus_1|bvn"))
	if bytes.Contains(sealed, []byte("22212345678")) || KeyID(sealed) != "k1" {
		t.Fatalf("sealed %q", sealed)
	}
	rotated, _ := Parse("k1:"+key(1)+", k2:"+key(2), "k2")
	if pt, err := rotated.Open(sealed, []byte("cus_1|bvn")); err != nil || string(pt) != "22212345678" {
		t.Fatalf("old data after rotation: %q %v", pt, err)
	}
	if KeyID(rotated.Seal([]byte("x"), nil)) != "k2" {
		t.Fatal("new data not sealed with the active key")
	}
	if _, err := old.Open(sealed, []byte("cus_2|bvn")); !errors.Is(err, ErrDecrypt) {
		t.Fatal("ciphertext moved to another record must not open")
	}
	gone, _ := Parse("k2:"+key(2), "k2")
	if _, err := gone.Open(sealed, []byte("cus_1|bvn")); !errors.Is(err, ErrDecrypt) {
		t.Fatal("unknown key must not open")
	}
	if a, b := old.Seal([]byte("same"), nil), old.Seal([]byte("same"), nil); bytes.Equal(a, b) {
		t.Fatal("nonces repeat")
	}
}

func TestParseRejectsBadSpecs(t *testing.T) {
	for _, spec := range []string{"", "k1", "k1:notbase64!", "k1:" + base64.StdEncoding.EncodeToString([]byte("short"))} {
		if _, err := Parse(spec, "k1"); err == nil {
			t.Errorf("accepted %q", spec)
		}
	}
	if _, err := Parse("k1:"+key(1), "k9"); err == nil {
		t.Error("active key outside the ring accepted")
	}
}

func FuzzOpen(f *testing.F) {
	k, _ := Parse("k1:"+key(1), "k1")
	f.Add(k.Seal([]byte("x"), nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = k.Open(b, nil) // must never panic
	})
}
