package network

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/handle"
)

// ConnectionProto is a connection as the contract shows it to its operator.
func ConnectionProto(c *ent.NetworkConnection) *switchboardv1.NetworkConnection {
	out := &switchboardv1.NetworkConnection{
		Id: c.ID, Peer: handle.Peer(c.PeerUserEmail, c.PeerInstanceURL), PeerInstanceUrl: c.PeerInstanceURL,
		PeerInstanceName: c.PeerInstanceName, PeerUserEmail: c.PeerUserEmail, PeerUserName: c.PeerUserName,
		Status: string(c.Status), Direction: string(c.Direction), TrustLevel: string(c.TrustLevel),
		Message: c.Message, CreatedAt: timestamppb.New(c.CreatedAt), UpdatedAt: timestamppb.New(c.UpdatedAt),
	}
	if c.AcceptedAt != nil {
		out.AcceptedAt = timestamppb.New(*c.AcceptedAt)
	}
	return out
}
