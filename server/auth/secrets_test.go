package auth

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// A login for an unknown name compares against dummyHash: it must cost what
// a real account's comparison costs, so its cost is the production cost.
func TestDummyHashCostsWhatARealOneDoes(t *testing.T) {
	cost, err := bcrypt.Cost(dummyHash)
	if err != nil || cost != bcrypt.DefaultCost {
		t.Fatalf("dummy hash cost %d (%v), want %d", cost, err, bcrypt.DefaultCost)
	}
	if CheckPassword("", "anything") {
		t.Fatal("an empty hash matched")
	}
	h, err := HashPassword("secret", bcrypt.DefaultCost)
	if err != nil || !CheckPassword(h, "secret") || CheckPassword(h, "other") {
		t.Fatalf("a real hash: %v", err)
	}
}
