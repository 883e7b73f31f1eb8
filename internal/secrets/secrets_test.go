package secrets

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpenRoundTrip(t *testing.T) {
	box, err := New(newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	aad := []byte("store_agent:abc:auth_credential")
	plain := []byte("tok_live_correct horse")
	a, err := box.Seal(plain, aad)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := box.Seal(plain, aad)
	if bytes.Equal(a, b) {
		t.Fatal("two seals of one value are equal: the nonce is not fresh")
	}
	if bytes.Contains(a, plain) {
		t.Fatal("the sealed value contains the plaintext")
	}
	got, err := box.Open(a, aad)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open = %q, %v", got, err)
	}
}

// A value opens only with its own key and its own row's associated data, and
// any altered byte is refused.
func TestOpenRefuses(t *testing.T) {
	key := newKey(t)
	box, _ := New(key)
	aad := []byte("store_agent:abc:auth_credential")
	sealed, _ := box.Seal([]byte("secret"), aad)

	if _, err := box.Open(sealed, []byte("store_agent:xyz:auth_credential")); !errors.Is(err, ErrCorrupt) {
		t.Errorf("another row's aad: %v", err)
	}
	other, _ := New(newKey(t))
	if _, err := other.Open(sealed, aad); !errors.Is(err, ErrWrongKey) {
		t.Errorf("another key: %v", err)
	}
	for i := range sealed {
		bad := bytes.Clone(sealed)
		bad[i] ^= 0x01
		if _, err := box.Open(bad, aad); err == nil {
			t.Fatalf("byte %d altered: opened", i)
		}
	}
	for _, bad := range [][]byte{nil, {version}, sealed[:10]} {
		if _, err := box.Open(bad, aad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Open(%x): %v", bad, err)
		}
	}
}

func TestParseKey(t *testing.T) {
	key := newKey(t)
	for name, s := range map[string]string{
		"base64":          base64.StdEncoding.EncodeToString(key),
		"base64 raw":      base64.RawStdEncoding.EncodeToString(key),
		"base64 url":      base64.URLEncoding.EncodeToString(key),
		"hex":             hex.EncodeToString(key),
		"trailing spaces": "  " + base64.StdEncoding.EncodeToString(key) + "\n",
	} {
		got, err := ParseKey(s)
		if err != nil || !bytes.Equal(got, key) {
			t.Errorf("%s: %x %v", name, got, err)
		}
	}
	short := base64.StdEncoding.EncodeToString(key[:16])
	for _, bad := range []string{"", "not a key", short, hex.EncodeToString(key[:31])} {
		_, err := ParseKey(bad)
		if err == nil {
			t.Errorf("ParseKey(%q) accepted", bad)
		} else if bad != "" && strings.Contains(err.Error(), bad) {
			t.Errorf("the error repeats the input: %v", err)
		}
	}
	if _, err := New(key[:16]); err == nil {
		t.Error("New accepted a 16-byte key")
	}
}
