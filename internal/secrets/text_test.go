package secrets

import (
	"errors"
	"testing"
	"unicode/utf8"
)

// A sealed text is valid UTF-8 (a PostgreSQL text column), opens only with
// its own associated data, and text that is not base64 is corrupt.
func TestSealTextRoundTrip(t *testing.T) {
	box, err := New(newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	aad := []byte("network-peer-token:c1")
	stored, err := box.SealText("sbf_secret", aad)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(stored) {
		t.Fatalf("sealed text %q is not valid UTF-8", stored)
	}
	if got, err := box.OpenText(stored, aad); err != nil || got != "sbf_secret" {
		t.Fatalf("OpenText = %q, %v; want the secret", got, err)
	}
	if _, err := box.OpenText(stored, []byte("network-peer-token:c2")); err == nil {
		t.Fatal("a sealed text opened with another row's associated data")
	}
	if _, err := box.OpenText("not base64!", aad); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("OpenText of non-base64 = %v, want ErrCorrupt", err)
	}
}
