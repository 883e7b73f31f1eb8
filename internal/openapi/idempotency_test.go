package openapi_test

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-hq/switchboard/gen/openapi"
)

// The served description documents Idempotency-Key on the operations that
// take it, and Idempotent-Replayed on their success answer, and on no other
// (docs/decisions.md, "Idempotency").
func TestIdempotencyHeaderDocumented(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name, In string }
			Responses  map[string]struct {
				Headers map[string]any
			}
		}
	}
	if err := json.Unmarshal(openapi.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, method, success string
		want                  bool
	}{
		{"/api/v2/queue", "post", "201", true},
		{"/api/v2/kanban", "post", "201", true},
		{"/api/v2/shared-chat/send", "post", "201", true},
		{"/api/marketplace/{id}/execute", "post", "200", true},
		{"/api/v2/kanban/{id}", "put", "200", true},
		{"/api/v2/queue", "get", "200", false},
		{"/api/v2/keys", "post", "201", false},
		{"/api/auth/login", "post", "200", false},
	} {
		op, ok := doc.Paths[tc.path][tc.method]
		if !ok {
			t.Fatalf("%s %s is not documented", tc.method, tc.path)
		}
		param := false
		for _, p := range op.Parameters {
			param = param || p.Name == "Idempotency-Key" && p.In == "header"
		}
		_, replayed := op.Responses[tc.success].Headers["Idempotent-Replayed"]
		if param != tc.want || replayed != tc.want {
			t.Errorf("%s %s: parameter %v, replayed header %v; want %v", tc.method, tc.path, param, replayed, tc.want)
		}
	}
}
