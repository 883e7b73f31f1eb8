package kanban

import (
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/money"
)

// nz drops an empty string: a field empty in the data model is absent (RPC)
// or null (REST), never "".
func nz(p *string) *string {
	if p == nil || *p == "" {
		return nil
	}
	return p
}

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

func optTS(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}

// items reads a card's loaded checklist for the rules.
func items(rows []*ent.ChecklistItem) []Item {
	out := make([]Item, len(rows))
	for i, r := range rows {
		out[i] = Item{Completed: r.Completed}
		if r.SourceType != nil {
			out[i].SourceType = *r.SourceType
		}
	}
	return out
}

// toCard renders a card whose checklist and contacts (with their contact) are
// loaded, as the list shows it: contacts carry the four-field contact.
func toCard(c *ent.Card) *switchboardv1.KanbanCard {
	out := toCardFields(c)
	out.Contacts = make([]*switchboardv1.CardContact, 0, len(c.Edges.CardContacts))
	for _, cc := range c.Edges.CardContacts {
		out.Contacts = append(out.Contacts, &switchboardv1.CardContact{
			Id: cc.ID, CardId: cc.CardID, ContactId: cc.ContactID, Role: nz(cc.Role),
			Involvement: cc.Involvement, CanDelegate: cc.CanDelegate, CreatedAt: ts(cc.CreatedAt),
			Contact: toContactPreview(cc.Edges.Contact),
		})
	}
	return out
}

// toCardDetail renders a card as the detail shows it: contacts carry the
// seven-field contact. KanbanCardDetail is KanbanCard number for number except
// for the contact projection, so the rest is carried over through the wire form.
func toCardDetail(c *ent.Card) (*switchboardv1.KanbanCardDetail, error) {
	b, err := proto.Marshal(toCardFields(c))
	if err != nil {
		return nil, fmt.Errorf("kanban: render card: %w", err)
	}
	out := &switchboardv1.KanbanCardDetail{}
	if err := proto.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("kanban: render card: %w", err)
	}
	if out.Labels == nil {
		out.Labels = []string{}
	}
	out.Contacts = make([]*switchboardv1.CardContactDetail, 0, len(c.Edges.CardContacts))
	for _, cc := range c.Edges.CardContacts {
		out.Contacts = append(out.Contacts, &switchboardv1.CardContactDetail{
			Id: cc.ID, CardId: cc.CardID, ContactId: cc.ContactID, Role: nz(cc.Role),
			Involvement: cc.Involvement, CanDelegate: cc.CanDelegate, CreatedAt: ts(cc.CreatedAt),
			Contact: toContactProfile(cc.Edges.Contact),
		})
	}
	return out, nil
}

func toContactPreview(c *ent.Contact) *switchboardv1.ContactPreview {
	if c == nil {
		return nil
	}
	return &switchboardv1.ContactPreview{Id: c.ID, Name: c.Name, Email: nz(c.Email), Company: nz(c.Company)}
}

func toContactProfile(c *ent.Contact) *switchboardv1.ContactProfile {
	if c == nil {
		return nil
	}
	tags := c.Tags
	if tags == nil {
		tags = []string{}
	}
	return &switchboardv1.ContactProfile{
		Id: c.ID, Name: c.Name, Email: nz(c.Email), Company: nz(c.Company),
		Phone: nz(c.Phone), Role: nz(c.Role), Tags: tags,
	}
}

// toCardFields renders everything but the contacts.
func toCardFields(c *ent.Card) *switchboardv1.KanbanCard {
	labels := c.Labels
	if labels == nil {
		labels = []string{} // never nil: RPC writes [], REST null
	}
	checklist := make([]*switchboardv1.ChecklistItem, 0, len(c.Edges.ChecklistItems))
	for _, it := range c.Edges.ChecklistItems {
		checklist = append(checklist, toChecklistItem(it))
	}
	userID := c.UserID
	return &switchboardv1.KanbanCard{
		Id: c.ID, Title: c.Title, Description: nz(c.Description),
		Status: string(c.Status), Priority: string(c.Priority), Assignee: string(c.Assignee),
		DueDate: optTS(c.DueDate), Order: int32(c.Order), Checklist: checklist,
		CreatedAt: ts(c.CreatedAt), UpdatedAt: ts(c.UpdatedAt),

		Summary: nz(c.Summary), Brief: nz(c.Brief), AssigneeUserId: nz(c.AssigneeUserID),
		AssigneeAgentId: nz(c.AssigneeAgentID), AssignedById: nz(c.AssignedByID),
		ReminderOffsetMinutes: c.ReminderOffsetMinutes, ReminderFiredAt: optTS(c.ReminderFiredAt),
		UserId: &userID,

		ProjectId: nz(c.ProjectID), WorkspaceId: nz(c.WorkspaceID), OriginCardId: nz(c.OriginCardID),
		OriginUserId: nz(c.OriginUserID), SourceRelayId: nz(c.SourceRelayID), SharedProjectId: nz(c.SharedProjectID),
		TemplateId: nz(c.TemplateID), CounterpartyUserId: nz(c.CounterpartyUserID), ProjectRole: nz(c.ProjectRole),
		ParentCardId: nz(c.ParentCardID), ParentChecklistItemId: nz(c.ParentChecklistItemID), CardRole: nz(c.CardRole),
		RollupCardId: nz(c.RollupCardID), ProjectTaskKey: nz(c.ProjectTaskKey), SourceRunId: nz(c.SourceRunID),
		SourceChannel: nz(c.SourceChannel), DifferenceId: nz(c.DifferenceID), UnifiedThreadId: nz(c.UnifiedThreadID),

		PaymentHoldId: nz(c.PaymentHoldID), PaymentStatus: nz(c.PaymentStatus), ProjectPrice: money.Ptr(c.ProjectPrice),
		CompletionSuggestedBy: nz(c.CompletionSuggestedBy), CompletionSuggestedAt: optTS(c.CompletionSuggestedAt),
		SettledAt: optTS(c.SettledAt),

		CardType: nz(c.CardType), Labels: labels, CoverColor: nz(c.CoverColor), CoverImageUrl: nz(c.CoverImageURL),
		PriorityScore: c.PriorityScore, StartDate: optTS(c.StartDate), LastActivityAt: optTS(c.LastActivityAt),
		IsArchived: c.IsArchived,

		PendingReview: PendingReview(items(c.Edges.ChecklistItems)),

		ExternalCardId: nz(c.ExternalCardID), ExternalInstanceUrl: nz(c.ExternalInstanceURL), ChangeLog: ChangeLog(c),
	}
}

// ChangeLog is a linked card's change log as the peer sent it, oldest first
// (RULINGS "The operator network": Card links); a log that does not read is
// empty.
func ChangeLog(c *ent.Card) []*switchboardv1.CardChange {
	out := []*switchboardv1.CardChange{}
	var raw []json.RawMessage
	if json.Unmarshal([]byte(c.ChangeLog), &raw) != nil {
		return out
	}
	for _, r := range raw {
		e := &switchboardv1.CardChange{}
		if protojson.Unmarshal(r, e) == nil {
			out = append(out, e)
		}
	}
	return out
}

func toChecklistItem(it *ent.ChecklistItem) *switchboardv1.ChecklistItem {
	return &switchboardv1.ChecklistItem{
		Id: it.ID, Text: it.Text, Completed: it.Completed, Order: it.Order,
		Summary: nz(it.Summary), Brief: nz(it.Brief), CardId: it.CardID, DueDate: optTS(it.DueDate),
		SourceType: nz(it.SourceType), SourceId: nz(it.SourceID), SourceLabel: nz(it.SourceLabel),
		AssigneeType: nz(it.AssigneeType), AssigneeName: nz(it.AssigneeName), AssigneeId: nz(it.AssigneeID),
		DelegationStatus: nz(it.DelegationStatus), ChildCardId: nz(it.ChildCardID),
		CreatedAt: ts(it.CreatedAt), UpdatedAt: ts(it.UpdatedAt),
	}
}
