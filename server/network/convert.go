package network

import (
	"net/url"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// Peer shows a peer as user@host of its verified origin: the local part of
// the peer's email and the origin's host (with its port).
func Peer(email, origin string) string {
	local, _, _ := strings.Cut(email, "@")
	host := origin
	if u, err := url.Parse(origin); err == nil && u.Host != "" {
		host = u.Host
	}
	return local + "@" + host
}

func toProto(c *ent.NetworkConnection) *switchboardv1.NetworkConnection {
	out := &switchboardv1.NetworkConnection{
		Id: c.ID, Peer: Peer(c.PeerUserEmail, c.PeerInstanceURL), PeerInstanceUrl: c.PeerInstanceURL,
		PeerInstanceName: c.PeerInstanceName, PeerUserEmail: c.PeerUserEmail, PeerUserName: c.PeerUserName,
		Status: string(c.Status), Direction: string(c.Direction), TrustLevel: string(c.TrustLevel),
		Message: c.Message, CreatedAt: timestamppb.New(c.CreatedAt), UpdatedAt: timestamppb.New(c.UpdatedAt),
	}
	if c.AcceptedAt != nil {
		out.AcceptedAt = timestamppb.New(*c.AcceptedAt)
	}
	return out
}
