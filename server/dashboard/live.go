// Package dashboard is what the operator's dashboard needs beside its views
// (issue 31, "Everything live"): the dashboard's kinds of stream events,
// made from the domain events of the areas it shows and emitted to the
// account that owns the record, in the change's unit of work (stored and
// resumed like every stream event; server/events sends them to the
// dashboard's stream only), and DashboardService's counts of what waits for
// the operator.
package dashboard

import (
	"context"

	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/store/review"
)

// The changes a record goes through.
var (
	created = string(vocab.QueueChangeCreated)
	updated = string(vocab.QueueChangeUpdated)
	deleted = string(vocab.QueueChangeDeleted)
)

// emit stores ev for userID in tx; nil emits nothing.
func emit(tx *db.Tx, userID string, ev *switchboardv1.ChatEvent) {
	if ev != nil && userID != "" {
		tx.Emit(db.Event{UserID: userID, Body: ev})
	}
}

// Recorded emits the dashboard event of an activity entry, to the entry's
// account: every change of the board, the contacts, the connections and the
// engagements is recorded in the activity feed by the code that makes it, in
// its unit of work, so this follows every writer of those records.
func Recorded(_ context.Context, tx *db.Tx, ev activity.Recorded) error {
	emit(tx, ev.Entry.UserID, FromActivity(ev.Entry, ev.Category))
	return nil
}

// FromActivity is the dashboard event an activity entry of category cat
// announces, or nil: queue entries have queue_updated already, relays and
// a declined connection their own events (RelayDelivered, RelayAcked,
// ConnectionDeclined), and the other categories no live view.
func FromActivity(e activity.Entry, cat string) *switchboardv1.ChatEvent {
	rc := &switchboardv1.RecordChange{Change: updated, Brief: proto.String(e.Summary)}
	var typ vocab.StreamEvent
	switch cat {
	case string(vocab.ActivityCategoryBoard):
		typ, rc.Id = vocab.StreamEventCardChanged, e.CardID
		switch e.Action {
		case "card_created":
			rc.Change = created
		case "card_deleted":
			rc.Change = deleted
		}
	case string(vocab.ActivityCategoryCRM):
		typ, rc.Id = vocab.StreamEventContactChanged, text(e.Metadata, "contactId")
		switch e.Action {
		case "contact_added":
			rc.Change = created
		case "contact_deleted":
			rc.Change = deleted
		}
	case string(vocab.ActivityCategoryConnections):
		var state vocab.ConnectionStatus
		switch e.Action {
		case "connection_created":
			typ, state, rc.Change = vocab.StreamEventConnectionRequested, vocab.ConnectionStatusPending, created
		case "connection_accepted":
			typ, state = vocab.StreamEventConnectionAccepted, vocab.ConnectionStatusActive
		case "connection_removed":
			typ, rc.Change = vocab.StreamEventConnectionRemoved, deleted
		default:
			return nil
		}
		rc.Id, rc.ConnectionId = text(e.Metadata, "connectionId"), optional(text(e.Metadata, "connectionId"))
		if state != "" {
			rc.State = proto.String(string(state))
		}
	case string(vocab.ActivityCategoryEconomy):
		typ, rc.Id = vocab.StreamEventEconomyChanged, text(e.Metadata, "contractId")
		rc.ConnectionId = optional(text(e.Metadata, "connectionId"))
		if e.Action == "contract_offered" {
			rc.Change = created
		}
	default:
		return nil
	}
	return events.Record(string(typ), rc)
}

// ConnectionDeclined emits connection_declined to the operator who
// declined: the activity feed does not record a decline.
func ConnectionDeclined(_ context.Context, tx *db.Tx, ev network.ConnectionDeclined) error {
	c := ev.Connection
	emit(tx, c.UserID, events.Record(string(vocab.StreamEventConnectionDeclined), &switchboardv1.RecordChange{
		Id: c.ID, Change: updated, ConnectionId: proto.String(c.ID), State: proto.String(string(c.Status)),
		Brief: proto.String("Declined the request from " + handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)),
	}))
	return nil
}

// RelayDelivered emits relay_delivered to the relay's recipient.
func RelayDelivered(_ context.Context, tx *db.Tx, ev network.RelayReceived) error {
	r := ev.Relay
	emit(tx, r.UserID, events.Record(string(vocab.StreamEventRelayDelivered), &switchboardv1.RecordChange{
		Id: r.ID, Change: created, Brief: proto.String(r.Subject), ConnectionId: proto.String(r.ConnectionID),
		State: proto.String(string(r.State)),
	}))
	return nil
}

// RelayAcked emits relay_acked to the relay's sender: the peer moved it.
func RelayAcked(_ context.Context, tx *db.Tx, ev network.RelayAcked) error {
	r := ev.Relay
	emit(tx, r.UserID, events.Record(string(vocab.StreamEventRelayAcked), &switchboardv1.RecordChange{
		Id: r.ID, Change: updated, Brief: proto.String(r.Subject), ConnectionId: proto.String(r.ConnectionID),
		State: proto.String(ev.State),
	}))
	return nil
}

// ResultDelivered emits store_changed to a store run's requester: its
// result arrived (and waits for review when it completed).
func ResultDelivered(_ context.Context, tx *db.Tx, ev review.ResultDelivered) error {
	emit(tx, ev.UserID, events.Record(string(vocab.StreamEventStoreChanged), &switchboardv1.RecordChange{
		Id: ev.ExecutionID, Change: updated, Brief: proto.String(ev.Title),
	}))
	return nil
}

// InstallsChanged is the store_changed event of an account's installs (of
// store agents or capability packs), which change without a unit of work
// of theirs: the caller publishes it on its own.
func InstallsChanged() *switchboardv1.ChatEvent {
	return events.Record(string(vocab.StreamEventStoreChanged), &switchboardv1.RecordChange{
		Change: updated, Brief: proto.String("installs changed"),
	})
}

func text(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
