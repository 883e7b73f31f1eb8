package throughtest

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/accounts"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// noAccountYet is RULINGS "Onboarding … details", No account yet, word for word.
const noAccountYet = "No account exists yet: create the owner"

// A login before any account exists says so, on REST and on every Connect
// protocol, and sets no cookie; once the owner exists an unknown name is the
// usual "invalid credentials" again.
func TestLoginBeforeAnyAccount(t *testing.T) {
	s := servertest.New(t)
	res := s.Anonymous().Do(http.MethodPost, "/api/auth/login", map[string]any{"username": "ann", "password": servertest.Password})
	servertest.WantError(t, res, http.StatusBadRequest)
	if b := res.JSON(t); b["error"] != noAccountYet || b["code"] != accounts.CodeNoAccount {
		t.Fatalf("REST body = %s, want error %q and code %s", res.Body, noAccountYet, accounts.CodeNoAccount)
	}
	if ck := res.Header.Get("Set-Cookie"); ck != "" {
		t.Fatalf("the refusal set a cookie: %q", ck)
	}
	for name, opts := range servertest.Protocols() {
		t.Run(name, func(t *testing.T) {
			c := switchboardv1connect.NewAccountServiceClient(s.Client(name), s.URL, opts...)
			_, err := c.Login(context.Background(), &switchboardv1.LoginRequest{Email: "ann@example.com", Password: servertest.Password})
			var ce *connect.Error
			if !errors.As(err, &ce) || ce.Code() != connect.CodeFailedPrecondition || ce.Message() != noAccountYet {
				t.Fatalf("Login = %v, want failed_precondition %q", err, noAccountYet)
			}
			info := errorInfo(t, ce)
			if info.GetCode() != accounts.CodeNoAccount {
				t.Fatalf("ErrorInfo = %v, want code %s", info, accounts.CodeNoAccount)
			}
		})
	}
	s.SignUp("owner")
	res = s.Anonymous().Do(http.MethodPost, "/api/auth/login", map[string]any{"username": "ann", "password": servertest.Password})
	if res.Status != http.StatusUnauthorized || res.JSON(t)["error"] != "invalid credentials" {
		t.Fatalf("unknown user once the owner exists: %d %s", res.Status, res.Body)
	}
}

// GET /api/auth/me names the session's user, on REST and Connect, so a tab
// that did not log in can show it; without a session it is 401.
func TestCurrentUser(t *testing.T) {
	s := servertest.New(t)
	s.SignUp("owner")
	ann := s.SignUp("ann")
	res := ann.Session.Do(http.MethodGet, "/api/auth/me", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	u, _ := res.JSON(t)["user"].(map[string]any)
	if u["id"] != ann.ID || u["username"] != "ann" || u["name"] != "Ann" || u["role"] != "member" {
		t.Fatalf("me = %s", res.Body)
	}
	c := switchboardv1connect.NewAccountServiceClient(&http.Client{Jar: ann.Jar, Transport: s.HTTP.Transport}, s.URL)
	got, err := c.GetCurrentUser(context.Background(), &switchboardv1.GetCurrentUserRequest{})
	if err != nil || got.GetUser().GetId() != ann.ID {
		t.Fatalf("GetCurrentUser = %v, %v", got, err)
	}
	servertest.WantError(t, s.Anonymous().Do(http.MethodGet, "/api/auth/me", nil), http.StatusUnauthorized)
}
