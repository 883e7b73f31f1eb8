package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// client is a browser-like caller of one running binary: a cookie jar for
// the session, an API key once made.
type client struct {
	t    *testing.T
	base string
	web  *http.Client
	key  string
}

func newClient(t *testing.T, base string) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: base, web: &http.Client{Timeout: 10 * time.Second, Jar: jar}}
}

// do answers the status and the decoded JSON body; session calls carry a
// same-origin Origin, key calls the bearer; hdr adds name, value pairs.
func (c *client) do(method, path, body string, hdr ...string) (int, map[string]any) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", c.base)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := c.web.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return res.StatusCode, out
}

// env for a server with no configured instance key, whatever the caller's
// environment holds.
func noKeyEnv() []string {
	return append(os.Environ(), "SWITCHBOARD_SECRET_KEY=", "SWITCHBOARD_SECRET_KEY_FILE=")
}

// Issue 12 item 4b: with no key configured, the first start writes one
// (0600) beside the database and logs where, never what; later starts use
// it, so a value sealed before a restart opens after it, and the README's
// store example (a listing with authMethod bearer) is not 503.
func TestInstanceKeyFromTheFirstStart(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "switchboard.db")
	keyFile := filepath.Join(dir, generatedKeyName)
	start := func(env []string) (*exec.Cmd, string, []logLine) {
		cmd := exec.Command(bin, slices.Concat(serveArgs, []string{"--db", dsn})...)
		cmd.Env = env
		base, lines := startLogged(t, cmd)
		return cmd, base, lines
	}
	cmd, base, lines := start(noKeyEnv())
	info, err := os.Stat(keyFile)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
	data, _ := os.ReadFile(keyFile)
	key, err := secrets.ParseKey(string(data))
	if err != nil {
		t.Fatalf("the key file does not hold a key the reader accepts: %v", err)
	}
	created := 0
	for _, l := range lines {
		raw, _ := json.Marshal(l)
		if bytes.Contains(raw, bytes.TrimSpace(data)) {
			t.Fatalf("a log line carries the key: %s", raw)
		}
		if l.str("msg") == msgKeyCreated {
			created++
			if l.str("path") != keyFile {
				t.Errorf("logged path %q, want %q", l.str("path"), keyFile)
			}
		}
	}
	if created != 1 {
		t.Fatalf("%d lines say the key was created, want 1: %v", created, lines)
	}

	c := newClient(t, base)
	if code, _ := c.do(http.MethodPost, "/api/setup", `{"username":"ann","email":"ann@example.com","password":"`+servertest.Password+`","name":"Ann","acceptedTerms":true}`); code != http.StatusCreated {
		t.Fatalf("setup: %d", code)
	}
	if code, _ := c.do(http.MethodPost, "/api/auth/login", `{"username":"ann","password":"`+servertest.Password+`"}`); code != http.StatusOK {
		t.Fatalf("login: %d", code)
	}
	code, body := c.do(http.MethodPost, "/api/v2/keys", `{"label":"agent","scopes":[]}`)
	c.key, _ = body["apiKey"].(string)
	if code != http.StatusCreated || c.key == "" {
		t.Fatalf("key: %d %v", code, body)
	}
	// The README's store example.
	code, body = c.do(http.MethodPost, "/api/marketplace", `{"name":"Research Scout","endpointUrl":"https://agents.example.com/scout","category":"research","pricingModel":"per_task","pricePerTask":2.5,"authMethod":"bearer","authCredential":"tok_0123456789"}`)
	if code != http.StatusCreated {
		t.Fatalf("a listing with authMethod bearer: %d %v", code, body)
	}
	// The owner of a paid pack is shown its access password, which is sealed
	// with the key: opening it after the restart needs the same key.
	code, body = c.do(http.MethodPost, "/api/marketplace-capabilities", `{"action":"create","name":"Paid pack","prompt":"Do it","pricingModel":"one_time","price":4.99,"accessPassword":"letmein-please"}`)
	pack, _ := body["capability"].(map[string]any)
	packID, _ := pack["capabilityId"].(string)
	if code != http.StatusCreated || packID == "" {
		t.Fatalf("pack with a password: %d %v", code, body)
	}
	terminate(t, cmd, "")

	cmd, base, lines = start(noKeyEnv())
	for _, l := range lines {
		if l.str("msg") == msgKeyCreated {
			t.Fatalf("the restart made another key: %v", l)
		}
	}
	if again, _ := os.ReadFile(keyFile); !bytes.Equal(again, data) {
		t.Fatal("the restart changed the key file")
	}
	c.base = base
	code, body = c.do(http.MethodGet, "/api/marketplace-capabilities/"+packID, "")
	if got, _ := body["capability"].(map[string]any); code != http.StatusOK || got["accessPassword"] != "letmein-please" {
		t.Fatalf("the sealed password after the restart: %d %v", code, body)
	}
	terminate(t, cmd, " after the restart")

	// The check above depends on the key: under another one, the password
	// does not open.
	other := make([]byte, len(key))
	copy(other, key)
	other[0] ^= 1
	otherFile := filepath.Join(t.TempDir(), "other.key")
	if err := os.WriteFile(otherFile, []byte(hex.EncodeToString(other)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, base, _ = start(append(noKeyEnv(), "SWITCHBOARD_SECRET_KEY_FILE="+otherFile))
	c.base = base
	if code, _ := c.do(http.MethodGet, "/api/marketplace-capabilities/"+packID, ""); code == http.StatusOK {
		t.Fatal("the sealed password opened under another key")
	}
}

// Two first starts at once end up with one key; a later call reads it.
func TestLoadOrCreateKeyOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), generatedKeyName)
	var wg sync.WaitGroup
	keys := make([][]byte, 8)
	made := make([]bool, 8)
	for i := range keys {
		wg.Go(func() {
			var err error
			if keys[i], made[i], err = loadOrCreateKey(path); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	n := 0
	for i := range keys {
		if made[i] {
			n++
		}
		if !bytes.Equal(keys[i], keys[0]) || len(keys[i]) != secrets.KeySize {
			t.Fatalf("key %d differs or is not %d bytes", i, secrets.KeySize)
		}
	}
	if n != 1 {
		t.Fatalf("%d calls created the key, want 1", n)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if k, made, err := loadOrCreateKey(path); err != nil || made || !bytes.Equal(k, keys[0]) {
		t.Fatalf("a later start: made %v, %v", made, err)
	}
	if err := os.WriteFile(path, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadOrCreateKey(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("a broken key file: %v", err)
	}
}

func TestGeneratedKeyPath(t *testing.T) {
	for dsn, want := range map[string]string{
		"sqlite:./switchboard.db":        generatedKeyName,
		"sqlite:/var/lib/sb/data.db":     "/var/lib/sb/" + generatedKeyName,
		"sqlite:///var/lib/sb/data.db":   "/var/lib/sb/" + generatedKeyName,
		"postgres://u@h:5432/db":         generatedKeyName,
		"postgresql://u@h:5432/db?x=1/2": generatedKeyName,
	} {
		if got := generatedKeyPath(dsn); got != want {
			t.Errorf("generatedKeyPath(%q) = %q, want %q", dsn, got, want)
		}
	}
}
