package operator

import (
	"context"
	"encoding/json"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/network"
)

// activeOwned is the caller's active connection id (another account's is
// 404) with the peer's token to present, after the switch.
func (s *Service) activeOwned(ctx context.Context, id string) (*ent.NetworkConnection, string, error) {
	row, err := s.core.Owned(ctx, id)
	if err != nil {
		return nil, "", err
	}
	if row.Status != networkconnection.StatusActive {
		return nil, "", apperr.IllegalMove("connection %s is %s: only an active connection reaches its peer", row.ID, row.Status)
	}
	w, err := s.core.SwitchOn(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := network.Admit(w, row.PeerInstanceURL); err != nil {
		return nil, "", err
	}
	token, err := s.core.PeerToken(row)
	if err != nil {
		return nil, "", err
	}
	return row, token, nil
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
