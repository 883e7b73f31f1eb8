package groups

import (
	"context"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// target is who a member add or an invite names: one local user (by id, or
// by an email that is a user's), an email no user here has, or a
// connection's peer.
type target struct {
	userID, email, connectionID string
}

// pickTarget reads the request's email, userId and connectionId: exactly
// one, or at most one when open is true (an invite link for anyone).
func pickTarget(email, userID, connectionID *string, open bool) (target, error) {
	t := target{email: strings.TrimSpace(deref(email)), userID: strings.TrimSpace(deref(userID)),
		connectionID: strings.TrimSpace(deref(connectionID))}
	n := 0
	for _, v := range []string{t.email, t.userID, t.connectionID} {
		if v != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return t, apperr.Invalid("name one of email, userId and connectionId, not several")
	case n == 0 && !open:
		return t, apperr.Invalid("name exactly one of email, userId and connectionId")
	}
	return t, nil
}

// peerOf is the caller's connection a connectionId names, active: another
// account's (or none) is 404, one not active is refused as a relay to it is.
func peerOf(ctx context.Context, c *ent.Client, userID, connectionID string) (*ent.NetworkConnection, error) {
	conn, err := c.NetworkConnection.Query().
		Where(networkconnection.ID(connectionID), networkconnection.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("connection %q not found", connectionID)
	} else if err != nil {
		return nil, err
	}
	if conn.Status != networkconnection.StatusActive {
		return nil, apperr.IllegalMove("connection %s is %s: only an active connection's peer can join or be invited", conn.ID, conn.Status)
	}
	return conn, nil
}

// local resolves t to a local user: a userId must name one (404), an email
// names one when a user has it (case-insensitively); mustExist makes an
// unknown email 404 too.
func local(ctx context.Context, c *ent.Client, t target, mustExist bool) (*ent.User, error) {
	switch {
	case t.userID != "":
		u, err := c.User.Get(ctx, t.userID)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("user %q not found", t.userID)
		}
		return u, err
	case t.email != "":
		u, err := c.User.Query().Where(user.EmailEqualFold(t.email)).First(ctx)
		if ent.IsNotFound(err) {
			if mustExist {
				return nil, apperr.NotFound("no user here has the email %q", t.email)
			}
			return nil, nil
		}
		return u, err
	}
	return nil, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
