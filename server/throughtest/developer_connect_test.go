package throughtest

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestRegisterOverConnect: the same service over Connect, gRPC and gRPC-Web
// (STYLE: each RPC over both transports): a developer key registers, a
// missing credential is unauthenticated, a spent connect token permission
// denied (RULINGS "Errors" mapping).
func TestRegisterOverConnect(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	a := newFakeAgent(t, true)
	key := f.developerKey(t, f.dev)
	ctx := context.Background()
	i := 0
	for protocol, opts := range servertest.Protocols() {
		i++
		client := func(bearer string) switchboardv1connect.DeveloperServiceClient {
			o := opts
			if bearer != "" {
				o = append(append([]connect.ClientOption{}, opts...), connect.WithInterceptors(servertest.BearerInterceptor(bearer)))
			}
			return switchboardv1connect.NewDeveloperServiceClient(f.s.Client(protocol), f.s.URL, o...)
		}
		slug := "via-" + string(rune('a'+i))
		in := func() *switchboardv1.DeveloperAgentInput {
			name, desc, url, cat, price := "Via "+protocol, "d", a.URL, "code", "free"
			return &switchboardv1.DeveloperAgentInput{
				Name: &name, Slug: &slug, Description: &desc, EndpointUrl: &url, Category: &cat, PricingModel: &price,
				DeclaredWidgetTypes: []string{"action_list"}, SkipHealthCheck: true,
			}
		}
		res, err := client(key).RegisterDeveloperAgent(ctx, &switchboardv1.RegisterDeveloperAgentRequest{Agent: in()})
		if err != nil || !res.GetEndpointProbe().GetConforms() || res.GetAgent().GetStatus() != "pending" || res.GetSelfConfigToken() == "" {
			t.Fatalf("%s register: %v %v", protocol, res, err)
		}
		if _, err := client("").RegisterDeveloperAgent(ctx, &switchboardv1.RegisterDeveloperAgentRequest{Agent: in()}); connect.CodeOf(err) != connect.CodeUnauthenticated {
			t.Fatalf("%s without credential: %v", protocol, err)
		}
		tok := f.connectToken(t, f.dev, "agent")
		slug = slug + "-tok"
		if _, err := client(tok).RegisterDeveloperAgent(ctx, &switchboardv1.RegisterDeveloperAgentRequest{Agent: in()}); err != nil {
			t.Fatalf("%s with token: %v", protocol, err)
		}
		slug = slug + "-again"
		_, err = client(tok).RegisterDeveloperAgent(ctx, &switchboardv1.RegisterDeveloperAgentRequest{Agent: in()})
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodePermissionDenied {
			t.Fatalf("%s spent token: %v", protocol, err)
		}
	}
	if res := f.s.WithKey(key).Do(http.MethodGet, "/api/developer/keys", nil); res.Status != http.StatusUnauthorized {
		t.Fatalf("a developer key is not a session: %d", res.Status)
	}
}
