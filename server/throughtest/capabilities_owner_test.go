package throughtest

import (
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The creator's pack installs for them at once, whatever its integration or
// price (integrationConnected says what is missing), and the owner never
// pays for their own pack: after an uninstall, a reinstall without the
// password is not 402 (document 2, "Capability packs (session)").
func TestOwnerInstallsOwnPaidPack(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	p := paidEmailPack()
	delete(p, "integrationType")
	created := f.create(t, f.api, p)
	id := created["capabilityId"].(string)
	if created["installed"] != true {
		t.Fatalf("not auto-installed: %v", created)
	}
	if res := f.api.Do(http.MethodDelete, capsPath+"/"+id, nil); res.Status != http.StatusOK {
		t.Fatalf("uninstall: %d %s", res.Status, res.Body)
	}
	if res := f.api.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id}); res.Status != http.StatusCreated {
		t.Fatalf("owner reinstall: %d %s", res.Status, res.Body)
	}
	// Another account still pays.
	if res := f.bobAPI.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id}); res.Status != http.StatusPaymentRequired {
		t.Fatalf("bob: %d %s", res.Status, res.Body)
	}
	// An email pack is installed for its creator though email is not connected.
	mail := f.create(t, f.api, paidEmailPack())
	if mail["installed"] != true || mail["integrationConnected"] != false {
		t.Fatalf("creator's email pack: %v", mail)
	}
}

// The owner must be able to read the access password back, so it is sealed
// with the instance key; an instance without one refuses a pack with a
// password (503) and writes nothing, while packs without one still work.
func TestNoSecretKeyRefusesPasswords(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t, servertest.WithoutSecretKey())
	before := f.counts(t)
	res := f.api.Do(http.MethodPost, capsPath, paidEmailPack())
	if res.Status != http.StatusServiceUnavailable {
		t.Fatalf("password without a key: %d %s", res.Status, res.Body)
	}
	if got := f.counts(t); got != before {
		t.Fatalf("a refusal wrote rows: %v → %v", before, got)
	}
	f.create(t, f.api, samplePack())
}
