package engine

import (
	"testing"

	"github.com/switchboard-hq/switchboard/server/auth"
)

// How a run started (the admin's agent activity): another instance's task
// whatever the door, else the door, else the API.
func TestRunOrigin(t *testing.T) {
	for _, c := range []struct {
		task string
		door auth.Door
		want string
	}{
		{OriginOwner, auth.DoorAPI, "local"},
		{OriginMarketplace, auth.DoorAPI, "local"},
		{OriginFederation, auth.DoorAPI, "federated"},
		{OriginFederation, auth.DoorMCP, "federated"},
		{OriginMarketplace, auth.DoorMCP, "mcp"},
		{OriginOwner, auth.DoorAssistant, "assistant"},
		{OriginMarketplace, auth.DoorA2A, "a2a"},
	} {
		if got := RunOrigin(c.task, c.door); got != c.want {
			t.Errorf("RunOrigin(%s, %d) = %s, want %s", c.task, c.door, got, c.want)
		}
	}
}
