package throughtest

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Every CapabilityService RPC over each Connect-family protocol gives what
// the REST routes give (document 2, "Capability packs (session)"; RULINGS
// "The two JSON renderings"): create (auto-installed), browse, detail with
// the prompt hidden until installed, install, customize, uninstall, smart
// tasks; and the refusals keep their codes (subscription: invalid_argument,
// another account's installation: not_found).
func TestEveryRPCOverConnectCapabilities(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	ctx := context.Background()
	for name := range servertest.Protocols() {
		ann, bob := f.client(name, f.annKey), f.client(name, f.bobKey)
		created, err := ann.InstallOrCreateCapability(ctx, &switchboardv1.InstallOrCreateCapabilityRequest{
			Action: "create", Name: "Pack " + name, Prompt: "Greet {{who}}", EditableFields: `[{"name":"who","default":"everyone"}]`,
			Category: proto.String("greetings"),
		})
		if err != nil {
			t.Fatalf("%s create: %v", name, err)
		}
		c := created.GetCapability()
		if !c.GetInstalled() || c.GetResolvedPrompt() != "Greet everyone" || c.GetPrompt() != "Greet {{who}}" {
			t.Fatalf("%s created: %v", name, c)
		}
		id := c.GetCapabilityId()
		_, err = ann.InstallOrCreateCapability(ctx, &switchboardv1.InstallOrCreateCapabilityRequest{
			Action: "create", Name: "Sub", Prompt: "x", PricingModel: "subscription"})
		if connect.CodeOf(err) != connect.CodeInvalidArgument {
			t.Fatalf("%s subscription: %v", name, err)
		}
		got, err := bob.GetCapability(ctx, &switchboardv1.GetCapabilityRequest{Id: id})
		if err != nil || got.GetCapability().Prompt != nil || got.GetCapability().GetInstalled() {
			t.Fatalf("%s detail before install: %v %v", name, got, err)
		}
		if _, err := bob.CustomizeCapability(ctx, &switchboardv1.CustomizeCapabilityRequest{Id: id}); connect.CodeOf(err) != connect.CodeNotFound {
			t.Fatalf("%s customize without install: %v", name, err)
		}
		if _, err := bob.InstallOrCreateCapability(ctx, &switchboardv1.InstallOrCreateCapabilityRequest{CapabilityId: id}); err != nil {
			t.Fatalf("%s install: %v", name, err)
		}
		cust, err := bob.CustomizeCapability(ctx, &switchboardv1.CustomizeCapabilityRequest{Id: id, Customizations: map[string]string{"who": "Bob"}})
		if err != nil || cust.GetCapability().GetResolvedPrompt() != "Greet Bob" {
			t.Fatalf("%s customize: %v %v", name, cust, err)
		}
		list, err := bob.ListCapabilities(ctx, &switchboardv1.ListCapabilitiesRequest{Installed: true, Category: "greetings"})
		if err != nil || len(list.GetCapabilities()) != 1 || list.GetCapabilities()[0].GetCapabilityId() != id {
			t.Fatalf("%s list: %v %v", name, list, err)
		}
		un, err := bob.UninstallCapability(ctx, &switchboardv1.UninstallCapabilityRequest{Id: id})
		if err != nil || un.GetCapability().GetInstalled() || un.GetCapability().Prompt != nil {
			t.Fatalf("%s uninstall: %v %v", name, un, err)
		}
		if _, err := bob.UninstallCapability(ctx, &switchboardv1.UninstallCapabilityRequest{Id: id}); connect.CodeOf(err) != connect.CodeNotFound {
			t.Fatalf("%s second uninstall: %v", name, err)
		}
		tasks, err := bob.ListSmartTasks(ctx, &switchboardv1.ListSmartTasksRequest{})
		if err != nil || len(tasks.GetTasks()) != 3 || tasks.GetTasks()[0].GetAgentId() != "builtin_email" {
			t.Fatalf("%s smart tasks: %v %v", name, tasks, err)
		}
	}
	// The REST twin answers the same pack the same way.
	res := f.bobAPI.Do(http.MethodGet, capsPath+"?category=greetings", nil)
	if res.Status != http.StatusOK || len(res.JSON(t)["capabilities"].([]any)) != len(servertest.Protocols()) {
		t.Fatalf("REST list: %d %s", res.Status, res.Body)
	}
}
