package network

import (
	"context"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// The operator's side of connections: NetworkService.

// ConnectionAccepted is published in the unit of work that makes a
// connection active, on either side (onboarding's network step hears it).
type ConnectionAccepted struct{ Connection *ent.NetworkConnection }

// Written records one of the network's activity entries for the local user;
// connection_accepted, the one record of every acceptance, also publishes
// ConnectionAccepted.
func (s *Core) Written(ctx context.Context, tx *db.Tx, c *ent.NetworkConnection, action, summary string) error {
	if err := activity.Write(ctx, tx, activity.Entry{
		UserID: c.UserID, Action: action, Actor: "Switchboard", At: s.NowUTC(),
		Summary:  summary + " " + handle.Peer(c.PeerUserEmail, c.PeerInstanceURL),
		Metadata: map[string]any{"connectionId": c.ID, "peerInstanceUrl": c.PeerInstanceURL},
	}); err != nil || action != "connection_accepted" {
		return err
	}
	return tx.Publish(ctx, ConnectionAccepted{Connection: c})
}

// PeerToken opens the token the peer issued, which this side presents.
func (s *Core) PeerToken(row *ent.NetworkConnection) (string, error) {
	if err := s.NeedSecrets(); err != nil {
		return "", err
	}
	if row.PeerTokenSealed == nil {
		return "", apperr.IllegalMove("this side holds no token of the peer's for connection %s", row.ID)
	}
	token, err := s.Secrets.OpenText(*row.PeerTokenSealed, PeerAAD(row.ID))
	if err != nil {
		return "", apperr.Internal(err)
	}
	return token, nil
}

// InstanceName is this instance's name as peers show it: its host.
func (s *Core) InstanceName() string {
	self, err := s.SelfOrigin()
	if err != nil {
		return ""
	}
	_, host, _ := strings.Cut(self, "://")
	return host
}

// ValidEmail is a light check: one @ with text on both sides, no spaces.
func ValidEmail(e string) bool {
	local, domain, ok := strings.Cut(e, "@")
	return ok && local != "" && domain != "" && !strings.ContainsAny(e, " \t\r\n") && !strings.Contains(domain, "@")
}

func Optional(s string) *string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return &s
}

func Deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
