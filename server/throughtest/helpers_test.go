package throughtest

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/projectmember"
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

// ensureNPM installs the npm packages pinned in dir (package-lock.json) when
// node_modules lacks want, so that `go test ./...` on a fresh checkout needs
// no step of its own. node and npm are required: the test fails without them.
func ensureNPM(t *testing.T, dir, want string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is required for this test: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", want, "package.json")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		install := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		install.Dir = dir
		if out, err := install.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return node
}

// leadProject makes a project with a fixed id led by userID, so that the
// cards and queue items a test files may name it (issue 28: a projectId
// the caller is not a member of is 404). Written as the service writes it.
func leadProject(t testing.TB, s *servertest.Server, userID, id string) {
	t.Helper()
	ctx := context.Background()
	now := s.Clock.Now().UTC()
	s.DB.Project.Create().SetID(id).SetName(id).SetColor("#6366F1").SetLeadID(userID).
		SetCreatedAt(now).SetUpdatedAt(now).ExecX(ctx)
	s.DB.ProjectMember.Create().SetProjectID(id).SetUserID(userID).SetRole(projectmember.RoleLead).
		SetCreatedAt(now).SetUpdatedAt(now).ExecX(ctx)
}
