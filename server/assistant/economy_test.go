package assistant

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/assistant/tags"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// Issue 29 point 3: the economy's tags are offered where EconomyService
// exists; without it a documented economy tag runs as "not available here".
func TestEconomyTagsNeedTheirService(t *testing.T) {
	t.Parallel()
	economy := []string{"hire_provider", "find_providers", "project_update", "request_info", "add_project_scope",
		"suggest_close_project", "submit_deliverable", "close_project", "dispute_project", "submit_project_review", "manage_review_visibility"}
	offered := func(e *Executor) []string {
		var out []string
		for _, c := range e.Commands() {
			out = append(out, c.Name)
		}
		return out
	}
	without := New(Config{})
	defer without.Close()
	with := New(Config{Services: Services{Economy: switchboardv1connect.UnimplementedEconomyServiceHandler{}}})
	defer with.Close()
	for _, n := range economy {
		if slices.Contains(offered(without), n) {
			t.Errorf("%s offered without EconomyService", n)
		}
		if !slices.Contains(offered(with), n) {
			t.Errorf("%s not offered with EconomyService", n)
		}
	}
	ctx := auth.WithPrincipal(context.Background(), &auth.Principal{UserID: "u1", Via: auth.ViaSession})
	got := without.Run(ctx, []tags.Tag{{Name: "hire_provider", Body: []byte(`{}`)}}, false)
	if len(got) != 1 || got[0].GetOk() || !strings.Contains(got[0].GetError(), "not available on this instance") {
		t.Fatalf("hire_provider without its service: %v", got)
	}
}
