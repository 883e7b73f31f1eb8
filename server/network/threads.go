package network

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// OwnThread refuses a relay's threadId or parentRelayId that is not its
// connection's (RULINGS "Security details": 404 from a peer and from the
// operator's own send alike), so that no one joins a thread of another
// connection and shows beside its parties.
//
// A thread belongs to the connection of its first relay, a relay carrying
// thread T when its threadId is T or, having none, its relay id is T (how a
// reply names a thread a peer started without an id). A thread no relay
// carries is a new one. A parent must be a relay of this connection, by the
// relay id both sides know or this side's id.
func OwnThread(ctx context.Context, relays *ent.RelayClient, connectionID string, thread, parent *string) error {
	if thread != nil && *thread != "" {
		first, err := relays.Query().
			Where(relay.Or(relay.ThreadID(*thread), relay.And(relay.ThreadIDIsNil(), relay.RelayID(*thread)))).
			Order(ent.Asc(relay.FieldCreatedAt), ent.Asc(relay.FieldID)).First(ctx)
		switch {
		case ent.IsNotFound(err):
		case err != nil:
			return err
		case first.ConnectionID != connectionID:
			return apperr.NotFound("no relay thread %q on this connection", *thread)
		}
	}
	if parent != nil && *parent != "" {
		ok, err := relays.Query().Where(relay.ConnectionID(connectionID),
			relay.Or(relay.RelayID(*parent), relay.ID(*parent))).Exist(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.NotFound("no relay %q on this connection", *parent)
		}
	}
	return nil
}
