// Package secrets seals values the server must be able to read back later
// (store agents' credentials: docs/decisions.md "Store, federation, MCP, A2A": agent
// credentials are stored encrypted at rest) with the instance's secret key:
// AES-256-GCM from the standard library, a fresh random nonce per value, and
// associated data that binds a sealed value to the row and column it belongs
// to, so a value copied into another row does not open.
package secrets

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of the instance key: AES-256.
const KeySize = 32

// version is the first byte of every sealed value, so that the format can
// change without guessing.
const version byte = 1

// fingerprintSize bytes of SHA-256 of the key follow the version: a value
// sealed under another key is reported as such (and a later key ring can pick
// the key that opens it) instead of failing as a forgery.
const fingerprintSize = 4

// ErrWrongKey says a value was sealed under a different instance key.
var ErrWrongKey = errors.New("secrets: sealed under a different key")

// ErrCorrupt says a value is not a sealed value, or was altered, or belongs to
// another row.
var ErrCorrupt = errors.New("secrets: sealed value is corrupt or does not belong here")

// Box seals and opens values with one key. It is safe for concurrent use.
type Box struct {
	aead        cipher.AEAD
	fingerprint [fingerprintSize]byte
}

// New makes a Box from a KeySize-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secrets: the key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	sum := sha256.Sum256(key)
	b := &Box{aead: aead}
	copy(b.fingerprint[:], sum[:fingerprintSize])
	return b, nil
}

// ParseKey reads a key written as standard or URL-safe base64 (padded or
// not) or as hex, with surrounding white space ignored (a key file usually
// ends with a newline). The error never repeats the input.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, dec := range []func(string) ([]byte, error){
		base64.StdEncoding.DecodeString, base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString, base64.RawURLEncoding.DecodeString,
		hex.DecodeString,
	} {
		if k, err := dec(s); err == nil && len(k) == KeySize {
			return k, nil
		}
	}
	return nil, fmt.Errorf("secrets: the key must be %d random bytes in base64 or hex (e.g. openssl rand -base64 32)", KeySize)
}

// Seal encrypts plaintext bound to aad (which is not stored: the reader must
// present it again).
func (b *Box) Seal(plaintext, aad []byte) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("secrets: nonce: %w", err)
	}
	out := make([]byte, 0, 1+fingerprintSize+len(nonce)+len(plaintext)+b.aead.Overhead())
	out = append(out, version)
	out = append(out, b.fingerprint[:]...)
	out = append(out, nonce...)
	return b.aead.Seal(out, nonce, plaintext, aad), nil
}

// Open decrypts a value Seal made with the same key and aad.
func (b *Box) Open(sealed, aad []byte) ([]byte, error) {
	head := 1 + fingerprintSize + b.aead.NonceSize()
	if len(sealed) < head+b.aead.Overhead() || sealed[0] != version {
		return nil, ErrCorrupt
	}
	if !bytes.Equal(sealed[1:1+fingerprintSize], b.fingerprint[:]) {
		return nil, ErrWrongKey
	}
	nonce := sealed[1+fingerprintSize : head]
	plain, err := b.aead.Open(nil, nonce, sealed[head:], aad)
	if err != nil {
		return nil, ErrCorrupt
	}
	return plain, nil
}
