package gate

import (
	"context"
	"strings"
	"testing"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/contract"
)

// A check registered with the gate reads the credentials its procedure's rule
// in the contract names (besides key and session), so the OpenAPI, made from
// the rule, and the check before the body cannot name different ones.
func TestCheckHoldsToTheContract(t *testing.T) {
	g := New(Config{Table: contract.MustLoad()})
	pass := func(context.Context) error { return nil }
	heartbeat := "/" + switchboardv1connect.FederationHubServiceName + "/Heartbeat"
	platform := []switchboardv1.Credential{switchboardv1.Credential_CREDENTIAL_PLATFORM_TOKEN}
	peer := []switchboardv1.Credential{switchboardv1.Credential_CREDENTIAL_FEDERATION_TOKEN}

	g.Check(platform, pass, heartbeat)
	if g.checks[heartbeat] == nil {
		t.Fatal("the agreeing check was not registered")
	}
	for _, c := range []struct {
		name  string
		reads []switchboardv1.Credential
		proc  string
		want  string
	}{
		{"another credential", peer, heartbeat, "its check reads [CREDENTIAL_FEDERATION_TOKEN], its rule in the contract names [CREDENTIAL_PLATFORM_TOKEN]"},
		{"none where the rule names one", nil, heartbeat, "its rule in the contract names [CREDENTIAL_PLATFORM_TOKEN]"},
		{"one more than the rule", append(platform, peer...), heartbeat, "its check reads [CREDENTIAL_PLATFORM_TOKEN CREDENTIAL_FEDERATION_TOKEN]"},
		{"a procedure the contract lacks", platform, "/switchboard.v1.NoSuchService/Nothing", "which is no procedure of the contract"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				got, _ := recover().(string)
				if !strings.Contains(got, c.want) {
					t.Errorf("panic = %q, want it to contain %q", got, c.want)
				}
			}()
			g.Check(c.reads, pass, c.proc)
		})
	}
}
