package throughtest

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The board's hidden columns are a setting (issue 31, point 3): set and
// cleared through both update paths (PATCH /api/v2/settings, PUT
// /api/settings), read back by GET, held to the card statuses.
func TestHiddenBoardColumns(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	bob := s.SignUp("bob")
	api := s.WithKey(ann.NewKey("agent"))
	hidden := func(c *servertest.Caller) []any {
		t.Helper()
		res := c.Do(http.MethodGet, "/api/v2/settings", nil)
		servertest.WantStatus(t, res, http.StatusOK)
		v, ok := res.JSON(t)["hiddenBoardColumns"].([]any)
		if !ok {
			t.Fatalf("hiddenBoardColumns is not a list: %s", res.Body)
		}
		return v
	}
	if got := hidden(api); len(got) != 0 {
		t.Fatalf("a new account hides %v", got)
	}

	res := api.Do(http.MethodPatch, "/api/v2/settings", `{"hiddenBoardColumns":["leads","qualifying"]}`)
	if res.Status != http.StatusOK || string(res.Body) != `{"hiddenBoardColumns":["leads","qualifying"]}`+"\n" {
		t.Fatalf("PATCH: %d %s", res.Status, res.Body)
	}
	if got := hidden(api); !slices.Equal(got, []any{"leads", "qualifying"}) {
		t.Fatalf("after PATCH hidden = %v", got)
	}
	if got := hidden(s.WithKey(bob.NewKey("agent"))); len(got) != 0 {
		t.Fatalf("bob's board hides %v after ann's change", got)
	}

	// The dashboard's path: PUT /api/settings with the session.
	res = ann.Session.Do(http.MethodPut, "/api/settings", `{"hiddenBoardColumns":["paused"]}`)
	if res.Status != http.StatusOK || string(res.Body) != `{"hiddenBoardColumns":["paused"]}`+"\n" {
		t.Fatalf("PUT: %d %s", res.Status, res.Body)
	}
	if got := hidden(api); !slices.Equal(got, []any{"paused"}) {
		t.Fatalf("after PUT hidden = %v", got)
	}

	for name, body := range map[string]string{
		"not a status":       `{"hiddenBoardColumns":["someday"]}`,
		"twice":              `{"hiddenBoardColumns":["leads","leads"]}`,
		"empty list":         `{"hiddenBoardColumns":[]}`,
		"set and cleared":    `{"hiddenBoardColumns":["leads"],"clearFields":["hiddenBoardColumns"]}`,
		"empty string":       `{"hiddenBoardColumns":[""]}`,
		"not a list":         `{"hiddenBoardColumns":"leads"}`,
		"unknown clearField": `{"clearFields":["hiddenColumns"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			servertest.WantError(t, api.Do(http.MethodPatch, "/api/v2/settings", body), http.StatusBadRequest)
			servertest.WantError(t, ann.Session.Do(http.MethodPut, "/api/settings", body), http.StatusBadRequest)
			if got := hidden(api); !slices.Equal(got, []any{"paused"}) {
				t.Fatalf("a refused update changed hidden to %v", got)
			}
		})
	}

	// Showing every column again: clearFields, on each path.
	res = ann.Session.Do(http.MethodPut, "/api/settings", `{"clearFields":["hiddenBoardColumns"]}`)
	if res.Status != http.StatusOK || string(res.Body) != `{"clearFields":["hiddenBoardColumns"]}`+"\n" {
		t.Fatalf("PUT clear: %d %s", res.Status, res.Body)
	}
	if got := hidden(api); len(got) != 0 {
		t.Fatalf("after clearing hidden = %v", got)
	}
	api.Do(http.MethodPatch, "/api/v2/settings", `{"hiddenBoardColumns":["completed"]}`)
	res = api.Do(http.MethodPatch, "/api/v2/settings", `{"clearFields":["hiddenBoardColumns"]}`)
	if res.Status != http.StatusOK || len(hidden(api)) != 0 {
		t.Fatalf("PATCH clear: %d %s, hidden %v", res.Status, res.Body, hidden(api))
	}
}

// The same setting over Connect: the list is always there, [] when none.
func TestHiddenBoardColumnsConnect(t *testing.T) {
	s := servertest.New(t)
	key := s.SignUp("ann").NewKey("agent")
	c := switchboardv1connect.NewSettingsServiceClient(s.HTTP, s.URL, connect.WithInterceptors(servertest.BearerInterceptor(key)))
	ctx := context.Background()
	up, err := c.UpdateSettings(ctx, &switchboardv1.UpdateSettingsRequest{HiddenBoardColumns: []string{"leads", "negotiation"}})
	if err != nil || !slices.Equal(up.GetHiddenBoardColumns(), []string{"leads", "negotiation"}) {
		t.Fatalf("UpdateSettings = %v, %v", up, err)
	}
	got, err := c.GetSettings(ctx, &switchboardv1.GetSettingsRequest{})
	if err != nil || !slices.Equal(got.GetHiddenBoardColumns(), []string{"leads", "negotiation"}) {
		t.Fatalf("GetSettings = %v, %v", got, err)
	}
	_, err = c.UpdateSettings(ctx, &switchboardv1.UpdateSettingsRequest{HiddenBoardColumns: []string{"later"}})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
}
