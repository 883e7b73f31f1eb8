package secrets

import "encoding/base64"

// SealText seals a secret for a text column: base64 of the sealed bytes (a
// PostgreSQL text column takes only valid UTF-8), bound to aad.
func (b *Box) SealText(secret string, aad []byte) (string, error) {
	sealed, err := b.Seal([]byte(secret), aad)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(sealed), nil
}

// OpenText opens what SealText stored.
func (b *Box) OpenText(stored string, aad []byte) (string, error) {
	sealed, err := base64.StdEncoding.DecodeString(stored)
	if err != nil {
		return "", ErrCorrupt
	}
	plain, err := b.Open(sealed, aad)
	return string(plain), err
}
