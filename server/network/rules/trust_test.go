package rules

import (
	"slices"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// RULINGS "The operator network": trust levels untrusted, known, trusted. The
// route's trust factor names them as constants; they must be the contract's
// trust_level vocabulary, the one the connections store.
func TestTrustLevelsAreTheVocabulary(t *testing.T) {
	t.Parallel()
	want := vocab.Values("trust_level")
	got := []string{TrustUntrusted, TrustKnown, TrustTrusted}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("trust constants %v, vocabulary trust_level %v", got, want)
	}
}
