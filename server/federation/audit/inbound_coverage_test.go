package audit

import (
	"net/http"
	"regexp"
	"slices"
	"testing"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/federation"
)

// Every procedure a connection's peer calls with its token (the operator
// network's and the task economy's peer routes) is guarded and audited on
// both transports: its Connect path and each of its REST routes is one of
// federation.InboundPaths. A new peer route without an entry there would
// reach its handler unguarded and leave no audit row.
func TestEveryPeerRouteIsInbound(t *testing.T) {
	table, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	vars := regexp.MustCompile(`\{[^}]+\}`)
	checked := 0
	for _, p := range table.All() {
		if !slices.Contains(p.Rule.GetCredentials(), switchboardv1.Credential_CREDENTIAL_FEDERATION_TOKEN) {
			continue
		}
		checked++
		if !Inbound(federation.InboundPaths, http.MethodPost, p.Name, true) {
			t.Errorf("%s: its Connect path is not in federation.InboundPaths", p.Name)
		}
		for _, b := range p.Bindings {
			path := vars.ReplaceAllString(b.Template, "x")
			if !Inbound(federation.InboundPaths, b.Method, path, true) {
				t.Errorf("%s: %s %s is not in federation.InboundPaths", p.Name, b.Method, b.Template)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no procedure takes a federation token: the test reads nothing")
	}
}
