package events

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/streamevent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// replay reads the account's stored events after id, oldest first.
func (b *Bus) replay(ctx context.Context, userID string, after int64) ([]*Frame, error) {
	rows, err := b.db.StreamEvent.Query().
		Where(streamevent.UserID(userID), streamevent.IDGT(after)).
		Order(ent.Asc(streamevent.FieldID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("events: replay: %w", err)
	}
	out := make([]*Frame, 0, len(rows))
	for _, r := range rows {
		f, err := decodeFrame(r.ID, r.Payload)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// latest is the account's newest stored event id, 0 when none.
func (b *Bus) latest(ctx context.Context, userID string) (int64, error) {
	ids, err := b.db.StreamEvent.Query().Where(streamevent.UserID(userID)).
		Order(ent.Desc(streamevent.FieldID)).Limit(1).IDs(ctx)
	if err != nil {
		return 0, fmt.Errorf("events: latest: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return ids[0], nil
}

func decodeFrame(id int64, payload []byte) (*Frame, error) {
	ev := &switchboardv1.ChatEvent{}
	if err := proto.Unmarshal(payload, ev); err != nil {
		return nil, fmt.Errorf("events: decode event %d: %w", id, err)
	}
	return newFrame(id, ev)
}

// Prune deletes the events no client can need any more: those older than
// KeepFor that are not among their account's last Keep.
func (b *Bus) Prune(ctx context.Context) error {
	cutoff := b.cfg.Now().Add(-b.cfg.KeepFor)
	users, err := b.db.StreamEvent.Query().Where(streamevent.CreatedAtLT(cutoff)).
		GroupBy(streamevent.FieldUserID).Strings(ctx)
	if err != nil {
		return fmt.Errorf("events: prune: %w", err)
	}
	for _, u := range users {
		// The account's Keep-th newest id: everything below it may go.
		kth, err := b.db.StreamEvent.Query().Where(streamevent.UserID(u)).
			Order(ent.Desc(streamevent.FieldID)).Offset(b.cfg.Keep - 1).Limit(1).IDs(ctx)
		if err != nil {
			return fmt.Errorf("events: prune: %w", err)
		}
		if len(kth) == 0 {
			continue
		}
		if _, err := b.db.StreamEvent.Delete().Where(streamevent.UserID(u),
			streamevent.CreatedAtLT(cutoff), streamevent.IDLT(kth[0])).Exec(ctx); err != nil {
			return fmt.Errorf("events: prune: %w", err)
		}
	}
	return nil
}

// notifyChannel names the NOTIFY channel after the schema, so that servers
// (and tests) on other schemas of the same database do not hear each other.
func notifyChannel(ctx context.Context, d *db.DB) (string, error) {
	var schema string
	if err := d.SQL.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return "", fmt.Errorf("events: current schema: %w", err)
	}
	ch := "switchboard_events." + schema
	if len(ch) > 63 { // longer identifiers are truncated by PostgreSQL
		return "", fmt.Errorf("events: schema name %q is too long for a NOTIFY channel", schema)
	}
	return ch, nil
}

// maxInlinePayload keeps a notification under PostgreSQL's 8,000-byte limit;
// a larger event is read back from the table by id.
const maxInlinePayload = 7000

// A notification is "<id> <user id>[ <base64 payload>]" (parseNotification);
// notificationTail is what follows the id, which the statement that draws
// the id writes before it (writeNotifySQL).
func notificationTail(userID string, payload []byte) string {
	s := " " + userID
	if base64.StdEncoding.EncodedLen(len(payload)) <= maxInlinePayload {
		s += " " + base64.StdEncoding.EncodeToString(payload)
	}
	return s
}

func parseNotification(s string) (id int64, userID string, payload []byte, inline bool, err error) {
	parts := strings.SplitN(s, " ", 3)
	if len(parts) < 2 {
		return 0, "", nil, false, fmt.Errorf("events: bad notification %q", s)
	}
	if id, err = strconv.ParseInt(parts[0], 10, 64); err != nil {
		return 0, "", nil, false, fmt.Errorf("events: bad notification id: %w", err)
	}
	if len(parts) == 3 {
		if payload, err = base64.StdEncoding.DecodeString(parts[2]); err != nil {
			return 0, "", nil, false, fmt.Errorf("events: bad notification payload: %w", err)
		}
		inline = true
	}
	return id, parts[1], payload, inline, nil
}
