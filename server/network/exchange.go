package network

import (
	"context"
	"encoding/json"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/peerwire"
)

// What connections exchange besides relays (RULINGS "The operator network:
// connections and relays": Notifications, Cross-instance reads, patterns,
// Jobs): NetworkExchangeService for the operator, NetworkExchangePeerService
// for the peers.

var (
	_ switchboardv1connect.NetworkExchangeServiceHandler     = (*Operator)(nil)
	_ switchboardv1connect.NetworkExchangePeerServiceHandler = (*Peers)(nil)
)

// maxMetadata bounds a notification's metadata object, as JSON.
const maxMetadata = 10_000

// fromActivePeer is fromPeer for the exchange's routes: the connection must
// be active (a pending request's token reads and writes nothing).
func (s *Core) fromActivePeer(ctx context.Context, route string, body error) (*ent.NetworkConnection, error) {
	row, err := s.fromPeer(ctx, route, body)
	if err != nil {
		return nil, err
	}
	if row.Status != networkconnection.StatusActive {
		return nil, apperr.Forbidden("%s: connection %s is %s, not active", route, row.ID, row.Status)
	}
	return row, nil
}

// activeOwned is the caller's active connection id (another account's is
// 404) with the peer's token to present, after the switch.
func (s *Operator) activeOwned(ctx context.Context, id string) (*ent.NetworkConnection, string, error) {
	row, err := s.core.owned(ctx, id)
	if err != nil {
		return nil, "", err
	}
	if row.Status != networkconnection.StatusActive {
		return nil, "", apperr.IllegalMove("connection %s is %s: only an active connection reaches its peer", row.ID, row.Status)
	}
	w, err := s.core.on(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := admit(w, row.PeerInstanceURL); err != nil {
		return nil, "", err
	}
	token, err := s.core.peerToken(row)
	if err != nil {
		return nil, "", err
	}
	return row, token, nil
}

// patternsPeer is a typed client for GetPatterns at origin, in the
// protocol it speaks.
func (s *Core) patternsPeer(ctx context.Context, origin string) peerwire.Patterns {
	return s.peers.Patterns(ctx, origin, s.ClientOptions...)
}

// metadataJSON is a metadata object as stored: "{}" when absent, refused
// over maxMetadata.
func metadataJSON(m *structpb.Struct) (string, error) {
	if m == nil {
		return "{}", nil
	}
	b, err := json.Marshal(m.AsMap())
	if err != nil {
		return "", apperr.Invalid("metadata is not a JSON object: %v", err)
	}
	if len(b) > maxMetadata {
		return "", apperr.Invalid("metadata is longer than %d bytes as JSON", maxMetadata)
	}
	return string(b), nil
}

// metadataOf is a stored metadata object; text that does not parse (never
// written by this code) answers an empty object.
func metadataOf(s string) *structpb.Struct {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		m = nil
	}
	out, err := structpb.NewStruct(m)
	if err != nil {
		out = &structpb.Struct{}
	}
	return out
}

// nonEmpty drops blank strings and repeats (case kept, first spelling wins).
func nonEmpty(in []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, v := range in {
		v = strings.TrimSpace(v)
		k := strings.ToLower(v)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, v)
	}
	return out
}
