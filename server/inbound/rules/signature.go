// Package rules holds the inbound webhooks' decisions without storage or
// transport (RULINGS "The proactive layer"): the Standard Webhooks signature,
// a generic hook's field mapping, the priority words, whether an email asks
// for something, and a transcript's action lines.
package rules

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix begins every hook secret (Standard Webhooks).
const SecretPrefix = "whsec_"

// Tolerance is how far a delivery's timestamp may be from the server's
// clock, either way.
const Tolerance = 5 * time.Minute

// Why a signature is refused; each is a 401 to the sender.
var (
	ErrMissingHeaders = errors.New("webhook-id, webhook-timestamp and webhook-signature are required")
	ErrTimestamp      = errors.New("webhook-timestamp must be Unix seconds")
	ErrStale          = errors.New("webhook-timestamp is more than 5 minutes from the server's clock")
	ErrNoMatch        = errors.New("no v1 signature in webhook-signature matches")
	ErrSecret         = errors.New("the hook's secret is not a whsec_ secret")
)

// NewSecret is a fresh secret: whsec_ and the base64 of 24 random bytes.
func NewSecret() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// Key is the HMAC key of a secret: the decoded bytes after whsec_.
func Key(secret string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || !strings.HasPrefix(secret, SecretPrefix) || len(k) == 0 {
		return nil, ErrSecret
	}
	return k, nil
}

// Sign is the v1 signature of a delivery (base64 of HMAC-SHA256 over
// "id.timestamp.body"), as a sender computes it.
func Sign(key []byte, id string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(ts, 10) + "."))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Headers are a delivery's three Standard Webhooks headers as sent.
type Headers struct {
	ID, Timestamp, Signature string
}

// Verify checks a delivery against the hook's secret at now: the timestamp
// within Tolerance both ways, and one of the space-separated "v1,<base64>"
// signatures equal to the expected one (compared in constant time).
func Verify(secret string, h Headers, body []byte, now time.Time) error {
	if h.ID == "" || h.Timestamp == "" || h.Signature == "" {
		return ErrMissingHeaders
	}
	ts, err := strconv.ParseInt(strings.TrimSpace(h.Timestamp), 10, 64)
	if err != nil {
		return ErrTimestamp
	}
	if d := now.Sub(time.Unix(ts, 0)); d > Tolerance || d < -Tolerance {
		return ErrStale
	}
	key, err := Key(secret)
	if err != nil {
		return err
	}
	want := []byte(Sign(key, h.ID, ts, body))
	for _, s := range ParseSignatures(h.Signature) {
		if hmac.Equal([]byte(s), want) {
			return nil
		}
	}
	return ErrNoMatch
}

// ParseSignatures answers the v1 signatures of a webhook-signature header
// (other versions, such as v1a, are not ours to check).
func ParseSignatures(header string) []string {
	var out []string
	for _, part := range strings.Fields(header) {
		version, sig, ok := strings.Cut(part, ",")
		if ok && version == "v1" && sig != "" {
			out = append(out, sig)
		}
	}
	return out
}
