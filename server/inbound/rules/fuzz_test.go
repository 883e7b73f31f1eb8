package rules

import (
	"strconv"
	"testing"
	"time"
)

// FuzzDecode: any body is decoded or refused, never panics, and what is
// decoded flattens and maps.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"title":"x"}`, `{"a":{"b":[1,2]}}`, `[]`, `{"a":1} x`, "\xff", `{"n":1e999}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := Decode(raw)
		if err != nil {
			return
		}
		flat := Flatten(doc)
		it := Apply(Learn(flat), flat, "fuzz")
		if it.Title == "" {
			t.Fatal("an item without a title")
		}
	})
}

// FuzzVerify: any header set is verified or refused, never panics, and a
// signature made with the secret always verifies.
func FuzzVerify(f *testing.F) {
	f.Add("msg_1", "v1,abc v1a,def", []byte(`{"x":1}`))
	f.Add("", "", []byte{})
	f.Add("msg 2", "v1,", []byte("\x00"))
	secret := "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	key, _ := Key(secret)
	now := time.Unix(1_700_000_000, 0)
	f.Fuzz(func(t *testing.T, id, sig string, body []byte) {
		ts := strconv.FormatInt(now.Unix(), 10)
		_ = Verify(secret, Headers{ID: id, Timestamp: ts, Signature: sig}, body, now)
		_ = ParseSignatures(sig)
		if id == "" {
			return
		}
		good := "v1," + Sign(key, id, now.Unix(), body)
		if err := Verify(secret, Headers{ID: id, Timestamp: ts, Signature: sig + " " + good}, body, now); err != nil {
			t.Fatalf("a good signature refused: %v", err)
		}
	})
}
