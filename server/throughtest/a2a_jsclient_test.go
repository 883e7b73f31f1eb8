package throughtest

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// jsLine is one line the node script printed.
type jsLine struct {
	Step  string          `json:"step"`
	Value json.RawMessage `json:"value"`
}

// Issue 13 acceptance (@a2a-js/sdk 1.3.0, a v1.0 client that finds its
// interface in the card's supportedInterfaces): send → submitted, the
// stream follows the operator's approval to completed with the artifact,
// cancel answers canceled and get still answers; ListTasks (issue 33) finds
// the tasks it sent and pages them.
func TestJSClient(t *testing.T) {
	t.Parallel()
	tools, err := filepath.Abs(filepath.Join("testdata", "a2a", "npm"))
	if err != nil {
		t.Fatal(err)
	}
	node := ensureNPM(t, tools, filepath.Join("@a2a-js", "sdk"))
	s, acct, key := setupA2A(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "a2a", "a2a-js-client.mjs"), s.URL, key)
	cmd.Env = append(os.Environ(), "TOOLS_NPM="+tools)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	lines := make(chan jsLine, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var l jsLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Errorf("node printed %q", sc.Text())
				continue
			}
			lines <- l
		}
	}()
	next := func(step string) map[string]any {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the node client exited before %s", step)
			}
			if l.Step != step {
				t.Fatalf("node printed %s %s, want %s", l.Step, l.Value, step)
			}
			var v map[string]any
			if err := json.Unmarshal(l.Value, &v); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			t.Logf("%s: %s", step, l.Value)
			return v
		case <-time.After(60 * time.Second):
			t.Fatalf("no %s from the node client in time", step)
		}
		return nil
	}
	// TaskState values as the SDK's enum numbers them.
	const submitted, working, completed, canceled = 1, 2, 3, 5
	state := func(task map[string]any) float64 {
		st, _ := task["status"].(map[string]any)["state"].(float64)
		return st
	}
	sent := next("sent")
	if state(sent) != submitted {
		t.Fatalf("sent: %v", sent)
	}
	// event unwraps a StreamResponse: its payload case and value.
	event := func() (string, map[string]any) {
		t.Helper()
		ev := next("event")
		p, _ := ev["payload"].(map[string]any)
		c, _ := p["$case"].(string)
		v, _ := p["value"].(map[string]any)
		return c, v
	}
	c, task := event()
	if c != "task" || state(task) != submitted {
		t.Fatalf("first event %s %v", c, task)
	}
	itemID := task["metadata"].(map[string]any)["queueItemId"].(string)
	operator(t, acct, "POST", "/api/v2/queue/"+itemID+"/confirm", map[string]any{"action": "approve"})
	if c, upd := event(); c != "statusUpdate" || state(upd) != submitted || upd["metadata"].(map[string]any)["queueStatus"] != "ready" {
		t.Errorf("approval %s %v", c, upd)
	}
	operator(t, acct, "POST", "/api/v2/queue/"+itemID+"/status", map[string]any{"status": "in_progress"})
	if c, upd := event(); c != "statusUpdate" || state(upd) != working {
		t.Errorf("working %s %v", c, upd)
	}
	operator(t, acct, "POST", "/api/v2/queue/"+itemID+"/result", map[string]any{"result": "Insurance renewed until 2027."})
	if c, upd := event(); c != "artifactUpdate" || upd["artifact"].(map[string]any)["name"] != "text" {
		t.Errorf("artifact %s %v", c, upd)
	}
	if c, upd := event(); c != "statusUpdate" || state(upd) != completed {
		t.Errorf("completed %s %v", c, upd)
	}
	if got := next("canceled"); state(got) != canceled {
		t.Errorf("cancel: %v", got)
	}
	if got := next("got"); state(got) != canceled || got["id"] != sent["id"] {
		t.Errorf("get after cancel: %v", got)
	}
	// ListTasks finds both tasks, and the pages follow the whole list's order
	// (the order itself, newest status first, is TestListTasks's: here the
	// server's clock stands still).
	ids := func(list map[string]any) []any {
		var out []any
		for _, task := range list["tasks"].([]any) {
			out = append(out, task.(map[string]any)["id"])
		}
		return out
	}
	listed := next("listed")
	got := ids(listed)
	if len(got) != 2 || !slices.Contains(got, sent["id"]) || !slices.Contains(got, task["id"]) ||
		listed["totalSize"] != 2.0 || listed["nextPageToken"] != "" {
		t.Errorf("listed %v", listed)
	}
	for _, lt := range listed["tasks"].([]any) {
		lt := lt.(map[string]any)
		// includeArtifacts: the completed task's result.
		if arts, _ := lt["artifacts"].([]any); lt["id"] == task["id"] && len(arts) != 1 {
			t.Errorf("the completed task's artifacts %v", lt["artifacts"])
		}
	}
	page1, page2 := next("page1"), next("page2")
	if p := ids(page1); len(got) != 2 || len(p) != 1 || p[0] != got[0] || page1["nextPageToken"] == "" || page1["pageSize"] != 1.0 {
		t.Errorf("page 1 %v", page1)
	}
	if p := ids(page2); len(got) != 2 || len(p) != 1 || p[0] != got[1] || page2["nextPageToken"] != "" {
		t.Errorf("page 2 %v", page2)
	}
}
