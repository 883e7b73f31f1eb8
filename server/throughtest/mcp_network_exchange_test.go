package throughtest

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// values are the values of key in each object of list, in order.
func values(list []any, key string) []string {
	out := make([]string, 0, len(list))
	for _, o := range list {
		v, _ := o.(map[string]any)[key].(string)
		out = append(out, v)
	}
	return out
}

func host(raw string) string {
	u, _ := url.Parse(raw)
	return u.Host
}

// RULINGS "The operator network" (Jobs) and document 2's MCP table
// (job_post, job_browse, job_match), through the Go SDK's client on two
// instances: A's jobs, posted with job_post, reach B's board; B's
// job_browse lists them newest first with A as the poster (and filters by
// task type); B's job_match ranks them against B's declared capability:
// the job that fits skills and kind first though it is the oldest, the one
// that fits only its kind below it, and the one that fits in nothing not
// at all.
func TestJobBrowseAndMatchAcrossInstances(t *testing.T) {
	t.Parallel()
	r := newTrio(t)
	ann := mcpConnect(t, r.a, r.ann.NewKey("ann", "mcp", "network"), nil)
	bob := mcpConnect(t, r.b, r.bob.NewKey("bob", "mcp", "network"), nil)

	post := func(args map[string]any) string {
		t.Helper()
		res := callTool(t, ann, "job_post", args)
		if res.IsError {
			t.Fatalf("job_post: %s", text(res))
		}
		got := structured(t, res)
		for _, d := range got["deliveries"].([]any) {
			if d.(map[string]any)["delivered"] != true {
				t.Fatalf("job_post did not reach a connection: %v", got)
			}
		}
		return got["job"].(map[string]any)["id"].(string)
	}
	post(map[string]any{"title": "Size the EU market", "description": "Top-down and bottom-up",
		"taskType": "research", "requiredSkills": []string{"Market sizing", "excel"}})
	post(map[string]any{"title": "Survey our customers", "description": "Twenty calls",
		"taskType": "research", "requiredSkills": []string{"interviewing"}})
	post(map[string]any{"title": "Draw a logo", "description": "Two options",
		"taskType": "creative", "requiredSkills": []string{"illustration"}})

	browse := callTool(t, bob, "job_browse", nil)
	if browse.IsError {
		t.Fatalf("job_browse: %s", text(browse))
	}
	jobs := structured(t, browse)["jobs"].([]any)
	if got := values(jobs, "title"); len(got) != 3 || got[0] != "Draw a logo" || got[1] != "Survey our customers" || got[2] != "Size the EU market" {
		t.Fatalf("B's job_browse, newest first: %v", got)
	}
	for _, j := range jobs {
		j := j.(map[string]any)
		if j["origin"] != "received" || j["status"] != "open" || j["from"] != "ann@"+host(r.a.URL) || j["connectionId"] != r.fromBs {
			t.Fatalf("B's copy of A's job: %v", j)
		}
	}
	if got := values(structured(t, callTool(t, bob, "job_browse", map[string]any{"taskType": "creative"}))["jobs"].([]any), "title"); len(got) != 1 || got[0] != "Draw a logo" {
		t.Fatalf("job_browse by task type: %v", got)
	}
	// C, connected to A too, got them; A's own board holds them as posted.
	if res := callTool(t, mcpConnect(t, r.c, r.carol.NewKey("carol", "mcp", "network"), nil), "job_browse", nil); len(structured(t, res)["jobs"].([]any)) != 3 {
		t.Fatalf("C's job_browse: %s", text(res))
	}

	match := func() []any {
		t.Helper()
		res := callTool(t, bob, "job_match", nil)
		if res.IsError {
			t.Fatalf("job_match: %s", text(res))
		}
		return structured(t, res)["matches"].([]any)
	}
	if got := match(); len(got) != 0 {
		t.Fatalf("job_match before B declares anything: %v", got)
	}
	res := r.bob.Session.Do(http.MethodPost, "/api/economy/capabilities",
		map[string]any{"taskType": "research", "skills": []string{"market sizing", "Excel", "forecasting"}})
	servertest.WantStatus(t, res, http.StatusCreated)
	capID := res.JSON(t)["capability"].(map[string]any)["id"].(string)

	got := match()
	titles := make([]string, len(got))
	for i, m := range got {
		titles[i] = m.(map[string]any)["job"].(map[string]any)["title"].(string)
	}
	if len(got) != 2 || titles[0] != "Size the EU market" || titles[1] != "Survey our customers" {
		t.Fatalf("B's job_match order: %v", titles)
	}
	best, next := got[0].(map[string]any), got[1].(map[string]any)
	// 0.7 × both skills + 0.3 for the kind; then the kind alone (JobMatch).
	if best["score"] != 1.0 || best["taskTypeMatch"] != true || best["capabilityId"] != capID ||
		len(best["matchedSkills"].([]any)) != 2 {
		t.Fatalf("the best match: %v", best)
	}
	if next["score"] != 0.3 || next["taskTypeMatch"] != true || next["matchedSkills"] != nil && len(next["matchedSkills"].([]any)) != 0 {
		t.Fatalf("the kind-only match: %v", next)
	}
}

// RULINGS "route_task": through the Go SDK's client, A's route_task ranks
// B above C once B's published work patterns fit the task and B has
// completed a relay of A's in its own queue (approved, then done: the
// completion reaches A as B's ack through B's outbox). Before either, the
// two score the same: the order comes from patterns and record, not from
// the tie-break.
func TestRouteTaskRanksPatternsAndCompletions(t *testing.T) {
	t.Parallel()
	r := newTrio(t)
	cs := mcpConnect(t, r.a, r.ann.NewKey("agent", "mcp", "network"), nil)
	task := map[string]any{"taskDescription": "Translate the launch post into German",
		"taskSkills": []string{"translation", "german"}, "taskType": "creative"}
	route := func() []map[string]any {
		t.Helper()
		res := callTool(t, cs, "route_task", task)
		if res.IsError {
			t.Fatalf("route_task: %s", text(res))
		}
		var out []map[string]any
		for _, c := range structured(t, res)["candidates"].([]any) {
			out = append(out, c.(map[string]any))
		}
		if len(out) != 2 {
			t.Fatalf("route_task candidates: %v", out)
		}
		return out
	}
	if got := route(); got[0]["score"] != got[1]["score"] {
		t.Fatalf("before patterns and relays B and C differ: %v", got)
	}

	// B publishes patterns that fit; C publishes ones that do not. A
	// fetches both now (its daily pass would).
	servertest.WantStatus(t, r.bob.Session.Do(http.MethodPost, "/api/federation/patterns", map[string]any{
		"taskTypes": []string{"creative"}, "skills": []string{"Translation", "German", "French"}, "maxConcurrent": 3}), http.StatusOK)
	servertest.WantStatus(t, r.carol.Session.Do(http.MethodPost, "/api/federation/patterns", map[string]any{
		"taskTypes": []string{"finance"}, "skills": []string{"bookkeeping"}, "maxConcurrent": 3}), http.StatusOK)
	for _, id := range []string{r.toB, r.toC} {
		servertest.WantStatus(t, r.ann.Session.Do(http.MethodPost, "/api/federation/connections/"+id+"/patterns", map[string]any{}), http.StatusOK)
	}

	// A relay to B, done in B's queue: B's moves send the acks.
	sent := callTool(t, cs, "relay_send", map[string]any{"connectionId": r.toB, "subject": "Translate the pricing page",
		"intent": "assign_task"})
	if sent.IsError {
		t.Fatalf("relay_send: %s", text(sent))
	}
	relayID := structured(t, sent)["sent"].([]any)[0].(map[string]any)["relay"].(map[string]any)["id"].(string)
	res := r.bob.Session.Do(http.MethodGet, "/api/v2/queue?status=pending_confirmation", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	items := res.JSON(t)["data"].(map[string]any)["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("B's pending items: %s", res.Body)
	}
	item := items[0].(map[string]any)["id"].(string)
	servertest.WantStatus(t, r.bob.Session.Do(http.MethodPost, "/api/v2/queue/"+item+"/confirm", map[string]any{"action": "approve"}), http.StatusOK)
	servertest.WantStatus(t, r.bob.Session.Do(http.MethodPost, "/api/v2/queue/"+item+"/result", map[string]any{"result": "Done: see the doc"}), http.StatusOK)
	servertest.WaitFor(t, "A's relay completed by B's ack", func() bool {
		res := r.ann.Session.Do(http.MethodGet, "/api/federation/relays/"+relayID, nil)
		return res.Status == http.StatusOK && res.JSON(t)["relay"].(map[string]any)["state"] == "completed"
	})

	got := route()
	b, c := got[0], got[1]
	if b["id"] != r.toB || c["id"] != r.toC {
		t.Fatalf("route_task order: %v then %v, want B (%s) then C", b["id"], c["id"], r.toB)
	}
	if b["score"].(float64) <= c["score"].(float64) {
		t.Fatalf("B scores %v, C %v", b["score"], c["score"])
	}
	bf, cf := b["factors"].(map[string]any), c["factors"].(map[string]any)
	if bf["skillMatch"].(float64) <= 0 || cf["skillMatch"] != nil && cf["skillMatch"].(float64) != 0 ||
		bf["domainProximity"] != 1.0 || bf["completionRate"] != 1.0 {
		t.Fatalf("factors: B %v, C %v", bf, cf)
	}
	if b["completedRelays"] != 1.0 || b["ackedRelays"] != 1.0 || c["completedRelays"] != nil && c["completedRelays"] != 0.0 {
		t.Fatalf("records: B %v, C %v", b, c)
	}
}
