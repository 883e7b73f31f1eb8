package network_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// askingPeer is a peer instance as far as a connection request goes: while
// A's request is in flight it asks A's well-known to verify it, first as
// it is, then once A's admin has turned the network off, and refuses the
// request (A then keeps nothing).
type askingPeer struct {
	switchboardv1connect.UnimplementedNetworkPeerServiceHandler
	a        *instance
	statuses []int
}

func (p *askingPeer) ReceiveConnection(_ context.Context, req *switchboardv1.ReceiveConnectionRequest) (*switchboardv1.ReceiveConnectionResponse, error) {
	verify := func() int {
		return p.a.Anonymous().Do(http.MethodGet, "/.well-known/switchboard-instance?nonce=n1&connectionId="+req.GetConnectionId(), nil).Status
	}
	p.statuses = append(p.statuses, verify())
	p.a.user.Session.Do(http.MethodPut, "/api/admin/federation/settings", map[string]any{"enabled": false})
	p.statuses = append(p.statuses, verify())
	return nil, connect.NewError(connect.CodePermissionDenied, nil)
}

// RULINGS "The operator network: connections and relays" (the switch: off,
// every peer route answers 403): the verification of a request that was
// already out when the network went off is refused too, 403, so no peer
// records a connection the operator can no longer use.
func TestVerificationRefusedOnceTheSwitchIsOff(t *testing.T) {
	t.Parallel()
	a := newInstance(t, "alice", on())
	peer := &askingPeer{a: a}
	mux := http.NewServeMux()
	mux.Handle(switchboardv1connect.NewNetworkPeerServiceHandler(peer))
	mux.HandleFunc("GET /.well-known/switchboard-instance", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"protocols":["connect"]}`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	res := a.user.Session.Do(http.MethodPost, "/api/federation/connect", map[string]any{"peerInstanceUrl": srv.URL, "peerUserEmail": "bob@example.com"})
	servertest.WantError(t, res, http.StatusForbidden)
	if len(peer.statuses) != 2 || peer.statuses[0] != http.StatusOK || peer.statuses[1] != http.StatusForbidden {
		t.Fatalf("verification answered %v; want 200 while on, 403 once off", peer.statuses)
	}
	if n := len(a.connections(t)); n != 0 {
		t.Fatalf("A kept %d connections", n)
	}
}
