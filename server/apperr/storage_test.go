package apperr_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/httpapi"
)

// RULINGS "Errors": storage failures are mapped in one place (apperr.Wrap)
// to 404, 409 and 400 (a broken reference, a value the schema refuses) with a
// human message, and no SQL text reaches a client
// on either transport. Real errors from a real database (SQLite, or
// PostgreSQL with SWITCHBOARD_TEST_POSTGRES).
func TestWrapMapsStorageErrors(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	user := func(name string) error {
		return d.Client.User.Create().SetUsername(name).SetEmail(name + "@example.com").
			SetName(name).SetPasswordHash("x").Exec(ctx)
	}
	if err := user("ada"); err != nil {
		t.Fatal(err)
	}
	_, notFound := d.Client.User.Get(ctx, "usr_missing")
	cases := []struct {
		name   string
		err    error
		kind   apperr.Kind
		msg    string
		status int
		code   connect.Code
	}{
		{"not found", notFound, apperr.KindNotFound, "user not found", 404, connect.CodeNotFound},
		{"not found wrapped", fmt.Errorf("load: %w", notFound), apperr.KindNotFound, "user not found", 404, connect.CodeNotFound},
		{"unique", user("ada"), apperr.KindConflict, "a record with the same unique value already exists", 409, connect.CodeAlreadyExists},
		{"foreign key", d.Client.Setting.Create().SetUserID("usr_missing").Exec(ctx), apperr.KindInvalid,
			"the request refers to a record that does not exist or breaks a rule of the data", 400, connect.CodeInvalidArgument},
		{"validation", d.Client.Execution.Create().SetUserID("usr_missing").SetAgentID("agt_missing").SetInput("x").
			SetStatus("queued").SetTaskOrigin("elsewhere").Exec(ctx), apperr.KindInvalid, "taskOrigin is not a valid value", 400, connect.CodeInvalidArgument},
		{"typed passes", apperr.NotFound("queue item %q not found", "q1"), apperr.KindNotFound, `queue item "q1" not found`, 404, connect.CodeNotFound},
		{"other", errors.New("driver: bad connection to 10.0.0.1"), apperr.KindInternal, "internal error", 500, connect.CodeInternal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				t.Fatal("the database accepted what it must refuse")
			}
			var e *apperr.Error
			if !errors.As(apperr.Wrap(tc.err), &e) || e.Kind != tc.kind || e.Message != tc.msg {
				t.Fatalf("Wrap(%v) = %#v, want kind %d %q", tc.err, e, tc.kind, tc.msg)
			}
			rec := httptest.NewRecorder()
			httpapi.WriteREST(rec, httptest.NewRequest(http.MethodGet, "/api/v2/x", nil), tc.err)
			var body map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != tc.status || body["error"] != tc.msg {
				t.Fatalf("REST = %d %s (%v)", rec.Code, rec.Body, err)
			}
			ce := apperr.ToConnect(tc.err)
			if ce.Code() != tc.code || ce.Message() != tc.msg {
				t.Fatalf("Connect = %v", ce)
			}
			for _, leak := range []string{"constraint", "UNIQUE", "violates", "INSERT", "ent:", "10.0.0.1"} {
				if strings.Contains(rec.Body.String(), leak) || strings.Contains(ce.Message(), leak) {
					t.Fatalf("%q reached the client: %s / %s", leak, rec.Body, ce.Message())
				}
			}
		})
	}
	if apperr.Wrap(nil) != nil {
		t.Fatal("Wrap(nil) must stay nil")
	}
}
