package network

import (
	"context"
	"encoding/json"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/peerwire"
)

// What connections exchange besides relays (RULINGS "The operator network:
// connections and relays": Notifications, Cross-instance reads, patterns,
// Jobs): NetworkExchangeService for the operator, NetworkExchangePeerService
// for the peers.

// maxMetadata bounds a notification's metadata object, as JSON.
const maxMetadata = 10_000

// FromActivePeer is fromPeer for the exchange's routes: the connection must
// be active (a pending request's token reads and writes nothing).
func (s *Core) FromActivePeer(ctx context.Context, route string, body error) (*ent.NetworkConnection, error) {
	row, err := s.FromPeer(ctx, route, body)
	if err != nil {
		return nil, err
	}
	if row.Status != networkconnection.StatusActive {
		return nil, apperr.Forbidden("%s: connection %s is %s, not active", route, row.ID, row.Status)
	}
	return row, nil
}

// PatternsPeer is a typed client for GetPatterns at origin, in the
// protocol it speaks.
func (s *Core) PatternsPeer(ctx context.Context, origin string) peerwire.Patterns {
	return s.Directory.Patterns(ctx, origin, s.ClientOptions...)
}

// MetadataJSON is a metadata object as stored: "{}" when absent, refused
// over maxMetadata.
func MetadataJSON(m *structpb.Struct) (string, error) {
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

// NonEmpty drops blank strings and repeats (case kept, first spelling wins).
func NonEmpty(in []string) []string {
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
