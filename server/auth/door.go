package auth

import "context"

// Door is the way a call reached a service when it did not come straight
// from the API's routes: the MCP door's tools, an item of an A2A task, the
// assistant's own runs. The store records it on each execution (the admin's
// agent activity counts runs by origin: RULINGS "Onboarding, sprite, admin
// views"); a call with none came through the API (REST or Connect).
type Door uint8

// The doors; the store names each as a run origin (vocabulary run_origin).
const (
	DoorAPI Door = iota
	DoorMCP
	DoorA2A
	DoorAssistant
)

type doorKey struct{}

// WithDoor marks what is called with ctx as coming through d.
func WithDoor(ctx context.Context, d Door) context.Context {
	return context.WithValue(ctx, doorKey{}, d)
}

// DoorOf is the door WithDoor set; DoorAPI when none was.
func DoorOf(ctx context.Context) Door {
	d, _ := ctx.Value(doorKey{}).(Door)
	return d
}
