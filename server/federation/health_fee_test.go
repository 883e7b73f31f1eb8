package federation_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/ent/federationmembership"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

func okAgent(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"output": "Done."}`))
}

// TestSpokeAnnouncesMaintenance: RULINGS "Federation: instances and the
// platform" (heartbeat health): the spoke's admin puts the instance in
// maintenance; the heartbeat goes at once, the hub records it and
// dispatches nothing there until the spoke is healthy again. Bad input and
// other callers change nothing.
func TestSpokeAnnouncesMaintenance(t *testing.T) {
	t.Parallel()
	x := newExecNet(t, okAgent, nil)
	ctx := context.Background()
	set := func(c *servertest.Caller, body any) *servertest.Response {
		return c.Do(http.MethodPost, "/api/federation/health", body)
	}
	res := set(x.spokeAdmin.Session, map[string]any{"status": "maintenance"})
	if res.Status != http.StatusOK {
		t.Fatalf("maintenance: %d %s", res.Status, res.Body)
	}
	st := res.JSON(t)["status"].(map[string]any)
	if st["health"] != "maintenance" || st["lastHeartbeat"].(map[string]any)["ok"] != true {
		t.Fatalf("status after maintenance: %v", st)
	}
	if got := x.instance(t)["health"]; got != "maintenance" {
		t.Fatalf("hub's view: %v", got)
	}
	res = x.buyer.Do(http.MethodPost, "/api/marketplace/"+x.hubAgentID+"/execute", map[string]any{"input": "Now?"})
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "maintenance") {
		t.Fatalf("execute during maintenance: %d %s", res.Status, res.Body)
	}
	if k := x.hub.DB.Execution.Query().CountX(ctx); k != 0 || x.agent.count() != 0 {
		t.Fatalf("maintenance made %d executions and %d calls", k, x.agent.count())
	}

	other := x.spoke.SignUp("member")
	for _, c := range []struct {
		name   string
		caller *servertest.Caller
		body   any
		want   int
	}{
		{"unknown status", x.spokeAdmin.Session, map[string]any{"status": "asleep"}, http.StatusBadRequest},
		{"no status", x.spokeAdmin.Session, map[string]any{}, http.StatusBadRequest},
		{"NUL", x.spokeAdmin.Session, map[string]any{"status": "healthy\u0000"}, http.StatusBadRequest},
		{"not an admin", other.Session, map[string]any{"status": "healthy"}, http.StatusForbidden},
		{"not joined (the hub)", x.hubAdmin.Session, map[string]any{"status": "degraded"}, http.StatusBadRequest},
	} {
		if res := set(c.caller, c.body); res.Status != c.want {
			t.Errorf("%s: %d %s", c.name, res.Status, res.Body)
		}
	}
	m := x.spoke.DB.FederationMembership.Query().OnlyX(ctx)
	inst := x.hub.DB.FederationInstance.Query().OnlyX(ctx)
	if m.Health != federationmembership.HealthMaintenance || inst.Health != federationinstance.HealthMaintenance {
		t.Fatalf("a refused call changed the health: %s / %s", m.Health, inst.Health)
	}
	st = x.spokeAdmin.Session.Do(http.MethodGet, "/api/federation/status", nil).JSON(t)["status"].(map[string]any)
	if st["health"] != "maintenance" {
		t.Fatalf("status: %v", st)
	}

	if res := set(x.spokeAdmin.Session, map[string]any{"status": "healthy"}); res.Status != http.StatusOK {
		t.Fatalf("healthy: %d %s", res.Status, res.Body)
	}
	if got := x.instance(t)["health"]; got != "healthy" {
		t.Fatalf("hub's view after healthy: %v", got)
	}
	got := x.execute(t, "Now?")
	eventually(t, "the dispatch once healthy", func() bool {
		return hubRow(t, x.hub, got["executionId"].(string)).Status == execution.StatusCompleted && x.agent.count() == 1
	})
}

// spokePaid runs a paid execution of the spoke's own listing for a spoke
// user and answers it once its review is open.
func spokePaid(t *testing.T, x *execNet, c *servertest.Caller) *ent.Execution {
	t.Helper()
	res := c.Do(http.MethodPost, "/api/marketplace/"+x.listingID+"/execute", map[string]any{"input": "Draft it."})
	if res.Status != http.StatusOK {
		t.Fatalf("execute on the spoke: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["executionId"].(string)
	var ex *ent.Execution
	eventually(t, "the paid execution in review", func() bool {
		ex = hubRow(t, x.spoke, id)
		return ex.ReviewStatus != nil && *ex.ReviewStatus == execution.ReviewStatusPendingReview
	})
	if ex.PaymentHoldStatus != execution.PaymentHoldStatusHeld || ex.FeePercent == nil {
		t.Fatalf("spoke execution: hold %s fee %v", ex.PaymentHoldStatus, ex.FeePercent)
	}
	return ex
}

// TestSpokeValidatesFeeBeforeSettling: RULINGS "Federation: instances and
// the platform" (validate-payment): a joined spoke asks its hub before
// capturing a paid execution of its own listing and records the answer; a
// hub that cannot be reached leaves the local fee, recorded as not
// validated; a hub settling its own does not ask.
func TestSpokeValidatesFeeBeforeSettling(t *testing.T) {
	t.Parallel()
	x := newExecNet(t, okAgent, map[string]any{"pricingModel": "per_task", "pricePerTask": 2.5})
	ctx := context.Background()
	user := x.spoke.SignUp("buyer")
	c := x.spoke.WithKey(user.NewKey("buy", "store"))
	confirm := func(id string) *ent.Execution {
		t.Helper()
		res := c.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "confirm", "executionId": id})
		if res.Status != http.StatusOK {
			t.Fatalf("confirm: %d %s", res.Status, res.Body)
		}
		ex := hubRow(t, x.spoke, id)
		if ex.PaymentHoldStatus != execution.PaymentHoldStatusCaptured {
			t.Fatalf("not captured: %s", ex.PaymentHoldStatus)
		}
		return ex
	}
	ex := spokePaid(t, x, c)
	if ex.HubFeeValidated != nil {
		t.Fatalf("recorded before the settlement: %v", *ex.HubFeeValidated)
	}
	ex = confirm(ex.ID)
	if ex.HubFeeValidated == nil || !*ex.HubFeeValidated || ex.HubEnforcedFeePercent == nil ||
		*ex.HubEnforcedFeePercent != *ex.FeePercent {
		t.Fatalf("validated settlement: %v %v (fee %v)", ex.HubFeeValidated, ex.HubEnforcedFeePercent, *ex.FeePercent)
	}

	// The hub cannot be reached: settled with the local fee, not validated.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	x.spoke.DB.FederationMembership.Update().SetHubURL(gone.URL).ExecX(ctx)
	ex = confirm(spokePaid(t, x, c).ID)
	if ex.HubFeeValidated == nil || *ex.HubFeeValidated || ex.HubEnforcedFeePercent != nil || ex.PlatformFee == nil {
		t.Fatalf("unreachable hub: %v %v", ex.HubFeeValidated, ex.HubEnforcedFeePercent)
	}

	// The hub's own paid execution of a hub listing is settled without a
	// check.
	hubKey := x.hub.WithKey(x.hubAdmin.NewKey("list", "store"))
	res := hubKey.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Hub Writer", "endpointUrl": x.agent.URL,
		"pricingModel": "per_task", "pricePerTask": 2.5})
	if res.Status != http.StatusCreated {
		t.Fatalf("hub listing: %d %s", res.Status, res.Body)
	}
	hubListing := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	if res := x.hubAdmin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+hubListing+"/approve", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("approve on the hub: %d %s", res.Status, res.Body)
	}
	res = x.buyer.Do(http.MethodPost, "/api/marketplace/"+hubListing+"/execute", map[string]any{"input": "Draft it."})
	if res.Status != http.StatusOK {
		t.Fatalf("execute on the hub: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["executionId"].(string)
	eventually(t, "the hub's execution in review", func() bool {
		e := hubRow(t, x.hub, id)
		return e.ReviewStatus != nil && *e.ReviewStatus == execution.ReviewStatusPendingReview
	})
	res = x.buyer.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "confirm", "executionId": id})
	if e := hubRow(t, x.hub, id); res.Status != http.StatusOK || e.PaymentHoldStatus != execution.PaymentHoldStatusCaptured ||
		e.HubFeeValidated != nil || e.HubEnforcedFeePercent != nil {
		t.Fatalf("hub settlement: %d %s %v", res.Status, res.Body, e.HubFeeValidated)
	}
}
