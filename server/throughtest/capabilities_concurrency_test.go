package throughtest

import (
	"net/http"
	"sync"
	"testing"
)

// Racing installs of one pack by one account: exactly one 201, the others
// 409, one row; the same after an uninstall, when installing reactivates the
// row (a conditional update).
func TestConcurrentInstallsOneWins(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	id := f.create(t, f.api, samplePack())["capabilityId"].(string)
	race := func(round string) {
		const n = 8
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = f.bobAPI.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id}).Status
			}()
		}
		wg.Wait()
		created := 0
		for _, s := range statuses {
			switch s {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
			default:
				t.Fatalf("%s: status %d in %v", round, s, statuses)
			}
		}
		if created != 1 {
			t.Fatalf("%s: %d installs succeeded: %v", round, created, statuses)
		}
	}
	race("first install")
	if got := f.counts(t); got != [2]int{1, 2} {
		t.Fatalf("rows after the race: %v", got)
	}
	if res := f.bobAPI.Do(http.MethodDelete, capsPath+"/"+id, nil); res.Status != http.StatusOK {
		t.Fatalf("uninstall: %d", res.Status)
	}
	race("reinstall")
	if got := f.counts(t); got != [2]int{1, 2} {
		t.Fatalf("rows after the second race: %v", got)
	}
}
