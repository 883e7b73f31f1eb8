package throughtest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

func userCount(t *testing.T, s *servertest.Server) int {
	t.Helper()
	n, err := s.DB.User.Query().Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// RULINGS "Accounts, keys, sessions": setup creates the owner once.
func TestSetupOnce(t *testing.T) {
	s := servertest.New(t)
	anon := s.Anonymous()
	body := map[string]any{"username": "ann", "email": "Ann@Example.com", "password": "long enough", "name": "Ann", "acceptedTerms": false}
	if res := anon.Do(http.MethodPost, "/api/setup", body); res.Status != 400 {
		t.Fatalf("setup without acceptedTerms: %d %s", res.Status, res.Body)
	}
	if n := userCount(t, s); n != 0 {
		t.Fatalf("refused setup wrote %d users", n)
	}
	body["acceptedTerms"] = true
	res := anon.Do(http.MethodPost, "/api/setup", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("setup: %d %s", res.Status, res.Body)
	}
	u := res.JSON(t)["user"].(map[string]any)
	if u["role"] != "admin" || u["email"] != "ann@example.com" || u["username"] != "ann" {
		t.Fatalf("owner = %v", u)
	}
	body["username"], body["email"] = "bob", "bob@example.com"
	if res := anon.Do(http.MethodPost, "/api/setup", body); res.Status != http.StatusConflict {
		t.Fatalf("second setup: %d %s", res.Status, res.Body)
	}
	if n := userCount(t, s); n != 1 {
		t.Fatalf("users = %d after refused second setup", n)
	}
	admins, err := s.DB.User.Query().Where(user.RoleEQ(user.RoleAdmin)).Count(context.Background())
	if err != nil || admins != 1 {
		t.Fatalf("admins = %d, %v", admins, err)
	}
}

// Document 1 "Other v2 endpoints" and RULINGS: username rules through both
// /api/username/check and signup.
func TestUsernameRules(t *testing.T) {
	s := servertest.New(t)
	s.SignUp("taken")
	cases := []struct {
		name      string
		available bool
	}{
		{"ab", true},
		{"a", false},                     // too short
		{strings.Repeat("x", 30), true},  // longest
		{strings.Repeat("x", 31), false}, // too long
		{"ok_name.with-dash9", true},     // every allowed character class
		{"Upper", false},                 // lowercase only
		{"has space", false},             // character set
		{"emoji😀", false},                // character set
		{"admin", false},                 // reserved
		{"support", false},               // reserved
		{"settings", false},              // reserved
		{"taken", false},                 // uniqueness
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := s.Anonymous().Do(http.MethodGet, "/api/username/check?username="+urlQuery(tc.name), nil)
			if res.Status != 200 {
				t.Fatalf("check: %d %s", res.Status, res.Body)
			}
			got := res.JSON(t)
			if got["available"] != tc.available || got["username"] != tc.name {
				t.Fatalf("check = %s", res.Body)
			}
			if tc.available != (got["reason"] == nil) {
				t.Fatalf("reason must be null exactly when available: %s", res.Body)
			}
			before := userCount(t, s)
			signup := s.Anonymous().Do(http.MethodPost, "/api/signup", map[string]any{
				"username": tc.name, "email": "u" + string(rune('a'+i)) + "@example.com",
				"password": "long enough", "name": "Someone",
			})
			want := http.StatusCreated
			if !tc.available {
				want = http.StatusBadRequest
				if tc.name == "taken" {
					want = http.StatusConflict
				}
			}
			if signup.Status != want {
				t.Fatalf("signup %q: %d %s, want %d", tc.name, signup.Status, signup.Body, want)
			}
			if wantN := before + map[bool]int{true: 1, false: 0}[tc.available]; userCount(t, s) != wantN {
				t.Fatalf("signup %q left %d users, want %d", tc.name, userCount(t, s), wantN)
			}
		})
	}
	if res := s.Anonymous().Do(http.MethodGet, "/api/username/check", nil); res.Status != 400 {
		t.Fatalf("check without username: %d", res.Status)
	}
}

func urlQuery(s string) string {
	r := strings.NewReplacer(" ", "%20", "😀", "%F0%9F%98%80")
	return r.Replace(s)
}

func TestSignupValidation(t *testing.T) {
	s := servertest.New(t)
	s.SignUp("owner")
	base := func() map[string]any {
		return map[string]any{"username": "newbie", "email": "newbie@example.com", "password": "long enough", "name": "New"}
	}
	cases := map[string]func(map[string]any){
		"short password":  func(b map[string]any) { b["password"] = "short" },
		"long password":   func(b map[string]any) { b["password"] = strings.Repeat("p", 73) },
		"bad email":       func(b map[string]any) { b["email"] = "not-an-email" },
		"named email":     func(b map[string]any) { b["email"] = "New <newbie@example.com>" },
		"missing name":    func(b map[string]any) { delete(b, "name") },
		"duplicate email": func(b map[string]any) { b["email"] = "OWNER@example.com" },
		"unknown field":   func(b map[string]any) { b["role"] = "admin" },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			b := base()
			mutate(b)
			res := s.Anonymous().Do(http.MethodPost, "/api/signup", b)
			if res.Status != 400 && res.Status != 409 {
				t.Fatalf("status %d %s", res.Status, res.Body)
			}
			if e := res.JSON(t); e["success"] != false || e["error"] == "" {
				t.Fatalf("error body = %s", res.Body)
			}
			if n := userCount(t, s); n != 1 {
				t.Fatalf("refused signup left %d users", n)
			}
		})
	}
	if res := s.Anonymous().Do(http.MethodPost, "/api/signup", `{"username":`); res.Status != 400 {
		t.Fatalf("malformed JSON: %d %s", res.Status, res.Body)
	}
}

func TestLoginLogout(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	anon := s.Anonymous()
	for name, body := range map[string]map[string]any{
		"wrong password": {"username": "ann", "password": "wrong password"},
		"unknown user":   {"username": "nobody", "password": servertest.Password},
	} {
		res := anon.Do(http.MethodPost, "/api/auth/login", body)
		if res.Status != http.StatusUnauthorized || res.JSON(t)["error"] != "invalid credentials" {
			t.Fatalf("%s: %d %s", name, res.Status, res.Body)
		}
		if res.Header.Get("Set-Cookie") != "" {
			t.Fatalf("%s set a cookie", name)
		}
	}
	res := anon.Do(http.MethodPost, "/api/auth/login", map[string]any{"email": "ANN@example.com", "password": servertest.Password})
	if res.Status != 200 {
		t.Fatalf("login by email: %d %s", res.Status, res.Body)
	}
	ck := res.Header.Get("Set-Cookie")
	for _, want := range []string{"sb_session=", "HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(ck, want) {
			t.Fatalf("cookie %q lacks %q", ck, want)
		}
	}
	if strings.Contains(ck, "Secure") {
		t.Fatalf("cookie over plain HTTP must not be Secure: %q", ck)
	}
	// The session works, then logout ends it for good.
	if res := ann.Session.Do(http.MethodGet, "/api/v2/keys", nil); res.Status != 200 {
		t.Fatalf("keys with session: %d", res.Status)
	}
	if res := ann.Session.Do(http.MethodPost, "/api/auth/logout", `{}`); res.Status != 200 {
		t.Fatalf("logout: %d %s", res.Status, res.Body)
	}
	if res := ann.Session.Do(http.MethodGet, "/api/v2/keys", nil); res.Status != http.StatusUnauthorized {
		t.Fatalf("keys after logout: %d %s", res.Status, res.Body)
	}
}

// Document 1 "Other v2 endpoints": resolve returns an object keyed by handle.
func TestResolveUsers(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	s.SignUp("bob")
	res := s.Anonymous().Do(http.MethodGet, "/api/users/resolve?usernames=ann,@bob,ghost", nil)
	if res.Status != 200 {
		t.Fatalf("resolve: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)
	if len(got) != 2 {
		t.Fatalf("resolve = %s, want ann and bob only", res.Body)
	}
	a := got["ann"].(map[string]any)
	if a["id"] != ann.ID || a["type"] != "user" || a["name"] != "Ann" {
		t.Fatalf("ann = %v", a)
	}
	if v, ok := a["avatar"]; !ok || v != nil {
		t.Fatalf("avatar must be null when absent: %v", a)
	}
	if _, leaked := a["email"]; leaked {
		t.Fatalf("resolve leaks email: %v", a)
	}
	if res := s.Anonymous().Do(http.MethodGet, "/api/users/resolve", nil); res.Status != 400 {
		t.Fatalf("resolve without usernames: %d", res.Status)
	}
}

// Concurrent setups on a fresh instance: exactly one owner.
func TestConcurrentSetupMakesOneOwner(t *testing.T) {
	s := servertest.New(t)
	const n = 8
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("owner%d", i)
			res := s.Anonymous().Do(http.MethodPost, "/api/setup", map[string]any{
				"username": name, "email": name + "@example.com", "password": "long enough", "name": "Owner", "acceptedTerms": true,
			})
			statuses <- res.Status
		}()
	}
	wg.Wait()
	close(statuses)
	created := 0
	for st := range statuses {
		switch st {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
		default:
			t.Errorf("unexpected status %d", st)
		}
	}
	if created != 1 || userCount(t, s) != 1 {
		t.Fatalf("created %d owners, %d users", created, userCount(t, s))
	}
}

// The login page asks whether the owner exists before offering setup: false on
// a new instance, true once setup has run, anonymously on both transports.
func TestGetSetupSaysWhetherTheOwnerExists(t *testing.T) {
	s := servertest.New(t)
	rpc := switchboardv1connect.NewAccountServiceClient(s.HTTP, s.URL)
	ask := func(want bool) {
		t.Helper()
		res := s.Anonymous().Do(http.MethodGet, "/api/setup", nil)
		if res.Status != http.StatusOK || res.JSON(t)["ownerExists"] != want {
			t.Fatalf("REST GET /api/setup: %d %s, want ownerExists %v", res.Status, res.Body, want)
		}
		got, err := rpc.GetSetup(context.Background(), &switchboardv1.GetSetupRequest{})
		if err != nil || got.GetOwnerExists() != want {
			t.Fatalf("Connect GetSetup = %v %v, want ownerExists %v", got, err, want)
		}
	}
	ask(false)
	s.SignUp("ann")
	ask(true)
}
