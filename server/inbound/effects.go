package inbound

import (
	"context"
	"encoding/json"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/contact"
	"github.com/switchboard-hq/switchboard/ent/inboundwebhook"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/runes"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/documents"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/inbound/rules"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// TypeEmail is the metadata type of an email's comms message.
const TypeEmail = "email"

// principal is who a delivery acts as: the hook's owner, named after the
// hook, its words outside text (provenance unknown: no writer kind names
// an outside sender).
func principal(h *ent.InboundWebhook) *auth.Principal {
	return &auth.Principal{UserID: h.UserID, Via: auth.ViaSession, Name: "webhook:" + h.Name}
}

// apply is what a verified delivery becomes, in its unit of work.
func (s *Service) apply(ctx context.Context, tx *db.Tx, h *ent.InboundWebhook, raw []byte, doc map[string]any, extracted []string) error {
	ctx = provenance.With(ctx, provenance.Mark{Kind: provenance.Unknown})
	switch h.Kind {
	case inboundwebhook.KindGeneric:
		return s.generic(ctx, tx, h, raw, doc)
	case inboundwebhook.KindEmail:
		return s.email(ctx, tx, h, doc)
	case inboundwebhook.KindTranscript:
		return s.transcript(ctx, tx, h, doc, extracted)
	case inboundwebhook.KindCalendar:
		return s.calendar(ctx, tx, h, doc)
	}
	return apperr.Invalid("unknown webhook kind %q", h.Kind)
}

// metaOf encodes an item's metadata.
func metaOf(m map[string]any) *string {
	b, _ := json.Marshal(m)
	out := string(b)
	return &out
}

// parseDue reads a due date: an RFC 3339 time or a plain date (midnight UTC).
func parseDue(v string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// generic learns the hook's mapping from its first delivery and turns
// each delivery into a queue item.
func (s *Service) generic(ctx context.Context, tx *db.Tx, h *ent.InboundWebhook, raw []byte, doc map[string]any) error {
	flat := rules.Flatten(doc)
	m, ok := mappingOf(h)
	if !ok {
		m = rules.Learn(flat)
		b, _ := json.Marshal(m)
		// Only the first delivery teaches: a concurrent first one finds it set.
		if err := tx.InboundWebhook.Update().Where(inboundwebhook.ID(h.ID), inboundwebhook.MappingIsNil()).
			SetMapping(string(b)).Exec(ctx); err != nil {
			return err
		}
	}
	it := rules.Apply(m, flat, h.Name)
	meta := map[string]any{"inboundWebhookId": h.ID, "body": json.RawMessage(raw)}
	due, hasDue := parseDue(it.Due)
	if hasDue {
		meta["dueAt"] = due.Format(time.RFC3339)
	} else if it.Due != "" {
		meta["due"] = it.Due
	}
	req := &switchboardv1.CreateQueueItemRequest{Title: it.Title, Priority: &it.Priority, Source: new("webhook:" + h.Name),
		Metadata: metaOf(meta)}
	if it.Description != "" {
		req.Description = &it.Description
	}
	item, err := s.Queue.CreateIn(ctx, tx, principal(h), req)
	if err != nil {
		return err
	}
	if hasDue && item.CardID != nil {
		// The card the bridge made for the item carries its due date.
		return tx.Card.UpdateOneID(*item.CardID).SetDueDate(due).Exec(ctx)
	}
	return nil
}

// str reads a text field of a delivery ("" when absent or not text).
func str(doc map[string]any, key string) string {
	v, _ := doc[key].(string)
	return strings.TrimSpace(v)
}

// email writes the email as a comms message (threaded to the one it
// answers) and, when the sender is a contact or it asks for something, a
// queue item.
func (s *Service) email(ctx context.Context, tx *db.Tx, h *ent.InboundWebhook, doc map[string]any) error {
	from, subject, text, messageID := str(doc, "from"), str(doc, "subject"), str(doc, "text"), str(doc, "messageId")
	var missing []string
	for name, v := range map[string]string{"from": from, "messageId": messageID} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return apperr.Invalid("an email delivery needs %s", strings.Join(sorted(missing), " and "))
	}
	if subject == "" && text == "" {
		return apperr.Invalid("an email delivery needs a subject or a text")
	}
	now := s.now()
	meta := map[string]any{"type": TypeEmail, "from": from, "to": doc["to"], "subject": subject, "messageId": messageID,
		"inboundWebhookId": h.ID}
	var replyTo *ent.ChatMessage
	if in := str(doc, "inReplyTo"); in != "" {
		meta["inReplyTo"] = in
		key, _ := json.Marshal(in)
		earlier, err := tx.ChatMessage.Query().Where(chatmessage.UserID(h.UserID), chatmessage.MetadataType(TypeEmail),
			chatmessage.MetadataContains(`"messageId":`+string(key))).Order(ent.Desc(chatmessage.FieldCreatedAt)).First(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
		if earlier != nil {
			replyTo = earlier
			meta["replyToMessageId"] = earlier.ID
		}
	}
	content := text
	if subject != "" {
		content = subject + "\n\n" + text
	}
	m, err := comms.Post(ctx, tx, now, h.UserID, strings.TrimSpace(content), "email: "+from, meta)
	if err != nil {
		return err
	}
	tx.Emit(db.Event{UserID: m.UserID, Body: events.NewMessage(m)})
	// comms.Post wrote comms_created; a threaded reply is told as one too.
	if replyTo != nil {
		if err := activity.Write(ctx, tx, activity.Entry{UserID: h.UserID, Action: "comms_replied", Actor: "webhook:" + h.Name,
			Summary:  fmt.Sprintf("Reply from %s: %s", from, subject),
			Metadata: map[string]any{"messageId": m.ID, "inboundWebhookId": h.ID, "inReplyTo": replyTo.ID}, At: now}); err != nil {
			return err
		}
	}
	known, err := fromContact(ctx, tx, h.UserID, from)
	if err != nil {
		return err
	}
	if !known && !rules.AsksForSomething(subject, text) {
		return nil
	}
	title := subject
	if title == "" {
		title, _, _ = strings.Cut(text, "\n")
	}
	req := &switchboardv1.CreateQueueItemRequest{Title: runes.Prefix(title, 500), Source: new("webhook:" + h.Name),
		Metadata: metaOf(map[string]any{"inboundWebhookId": h.ID, "commsMessageId": m.ID, "from": from, "messageId": messageID})}
	if text != "" {
		req.Description = &text
	}
	_, err = s.Queue.CreateIn(ctx, tx, principal(h), req)
	return err
}

// fromContact says whether an email's sender is one of the account's contacts.
func fromContact(ctx context.Context, tx *db.Tx, userID, from string) (bool, error) {
	addr := from
	if a, err := mail.ParseAddress(from); err == nil {
		addr = a.Address
	}
	return tx.Contact.Query().Where(contact.UserID(userID), contact.EmailEqualFold(addr)).Exist(ctx)
}

// transcript stores the transcript as a document (recording_created) and
// turns its action items into queue items (recording_processed): those the
// provider extracted when it answered, else its action lines.
func (s *Service) transcript(ctx context.Context, tx *db.Tx, h *ent.InboundWebhook, doc map[string]any, extracted []string) error {
	title, text := str(doc, "title"), str(doc, "text")
	if text == "" {
		return apperr.Invalid("a transcript delivery needs a text")
	}
	if title == "" {
		title = "Transcript from " + h.Name
	}
	now := s.now()
	meta := map[string]any{"inboundWebhookId": h.ID}
	if p, ok := doc["participants"]; ok {
		meta["participants"] = p
	}
	if at := str(doc, "recordedAt"); at != "" {
		meta["recordedAt"] = at
	}
	d, err := documents.Create(ctx, tx, documents.New{UserID: h.UserID, Actor: "webhook:" + h.Name, Title: runes.Prefix(title, 500),
		MimeType: "text/plain", Content: text, At: now, Action: "recording_created", Metadata: meta})
	if err != nil {
		return err
	}
	actions, by := extracted, "provider"
	if actions == nil {
		actions, by = rules.ActionItems(text), "lines"
	}
	var items []string
	for _, a := range actions {
		it, err := s.Queue.CreateIn(ctx, tx, principal(h), &switchboardv1.CreateQueueItemRequest{Title: runes.Prefix(a, 500),
			Source: new("webhook:" + h.Name), Metadata: metaOf(map[string]any{"inboundWebhookId": h.ID, "documentId": d.ID})})
		if err != nil {
			return err
		}
		items = append(items, it.ID)
	}
	return activity.Write(ctx, tx, activity.Entry{UserID: h.UserID, Action: "recording_processed", Actor: "webhook:" + h.Name,
		Summary:  fmt.Sprintf("Found %d action items in %s", len(items), d.Title),
		Metadata: map[string]any{"documentId": d.ID, "queueItemIds": items, "extractedBy": by}, At: now})
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}
