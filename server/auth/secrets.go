package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// KeyPrefix starts every API key (docs/decisions.md "Names").
const KeyPrefix = "sbk_"

// keyPrefixShown is how much of a key is kept in clear to recognise it.
const keyPrefixShown = 12

var token32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewToken returns prefix plus 256 random bits as lowercase base32 (easy to
// select with a double click and to paste into a shell), and its hash: every
// bearer secret the server hands out (keys, sessions, developer and connect
// tokens, callback tokens) is made here.
func NewToken(prefix string) (token, hash string) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	token = prefix + strings.ToLower(token32.EncodeToString(b[:]))
	return token, HashToken(token)
}

// NewAPIKey returns a fresh key, the part shown to recognise it, and its hash.
func NewAPIKey() (key, prefix, hash string) {
	key, hash = NewToken(KeyPrefix)
	return key, key[:keyPrefixShown], hash
}

// NewSessionToken returns a fresh cookie token and its hash.
func NewSessionToken() (token, hash string) { return NewToken("") }

// HashToken is the stored form of a high-entropy token. A fast hash suffices:
// with 256 random bits there is nothing to brute-force.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// MinPasswordLen and MaxPasswordBytes bound passwords; bcrypt reads at most 72 bytes.
const (
	MinPasswordLen   = 8
	MaxPasswordBytes = 72
)

// ErrPasswordTooLong is returned for passwords bcrypt would silently cut.
var ErrPasswordTooLong = errors.New("password is longer than 72 bytes")

// HashPassword hashes a password with bcrypt at the given cost
// (bcrypt.DefaultCost in production; tests may lower it).
func HashPassword(password string, cost int) (string, error) {
	if len(password) > MaxPasswordBytes {
		return "", ErrPasswordTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	return string(h), err
}

// dummyHash is compared against when no account matches, so that a login for an
// unknown name costs as long as one with a wrong password. It is a bcrypt hash
// at bcrypt.DefaultCost of a random secret nobody kept, written here rather
// than computed at start: hashing it took ~60 ms of every process's start
// (issue 34), and comparing against a constant costs what comparing against
// a computed one does.
var dummyHash = []byte("$2a$10$YJ/LZ9FM.m0cHqDT0LEWn.l.yoQbJoiylqNtis3/rhEUgHBmVOe26")

// CheckPassword reports whether password matches hash; an empty hash still costs
// one comparison.
func CheckPassword(hash, password string) bool {
	if hash == "" {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}
