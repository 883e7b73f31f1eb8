package throughtest

import (
	"bytes"
	"flag"
	"sync"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The helpers more than one area's tests use.

// update rewrites the golden files under testdata/ (a2a's and mcp's) from the
// current answers.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/ from the current answers")

// storeAccounts is a server with two accounts, ann and bob, each with a key of
// the store scope (the store's and the capability packs' fixtures).
type storeAccounts struct {
	s              *servertest.Server
	ann, bob       *servertest.Account
	annKey, bobKey string
	api, bobAPI    *servertest.Caller // keys on REST
}

func newStoreAccounts(t *testing.T, opts ...servertest.Option) storeAccounts {
	t.Helper()
	s := servertest.New(t, opts...)
	f := storeAccounts{s: s, ann: s.SignUp("ann"), bob: s.SignUp("bob")}
	f.annKey, f.bobKey = f.ann.NewKey("ann-agent", "store"), f.bob.NewKey("bob-agent", "store")
	f.api, f.bobAPI = s.WithKey(f.annKey), s.WithKey(f.bobKey)
	return f
}

// syncBuffer is a log sink safe for the server's concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
