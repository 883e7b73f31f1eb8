package contacts

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// toProto renders a contact without its card links (cards is []).
func toProto(c *ent.Contact) *switchboardv1.Contact {
	out := &switchboardv1.Contact{
		Id: c.ID, Name: c.Name, UserId: c.UserID,
		Email: c.Email, Phone: c.Phone, Company: c.Company, Role: c.Role,
		PreferredChannel: c.PreferredChannel, Notes: c.Notes, Source: c.Source,
		PlatformUserId: c.PlatformUserID, PlatformUserStatus: c.PlatformUserStatus,
		LastInteractionType: c.LastInteractionType,
		Tags:                nonNil(c.Tags),
		Cards:               []*switchboardv1.ContactCardLink{},
		MatchedAt:           optTime(c.MatchedAt),
		LastInteractionAt:   optTime(c.LastInteractionAt),
		CreatedAt:           timestamppb.New(c.CreatedAt),
		UpdatedAt:           timestamppb.New(c.UpdatedAt),
	}
	if c.EnrichedData != "" {
		out.EnrichedData = proto.String(c.EnrichedData)
	}
	return out
}

// toListContact renders a contact as the list shows it: four-field cards.
func toListContact(c *ent.Contact, links []*ent.CardContact) *switchboardv1.Contact {
	out := toProto(c)
	for _, l := range links {
		cd := l.Edges.Card
		out.Cards = append(out.Cards, &switchboardv1.ContactCardLink{
			Id: l.ID, CardId: l.CardID, ContactId: l.ContactID, Role: l.Role,
			Involvement: l.Involvement, CanDelegate: l.CanDelegate, CreatedAt: timestamppb.New(l.CreatedAt),
			Card: &switchboardv1.CardPreview{
				Id: cd.ID, Title: cd.Title, Status: cd.Status.String(), Priority: cd.Priority.String(),
			},
		})
	}
	return out
}

// toDetail renders a contact as the detail shows it: six-field cards.
// ContactDetail is Contact number for number except the cards' projection,
// so the shared fields travel through the wire format.
func toDetail(c *ent.Contact, links []*ent.CardContact) (*switchboardv1.ContactDetail, error) {
	base := toProto(c)
	base.Cards = nil
	b, err := proto.Marshal(base)
	if err != nil {
		return nil, fmt.Errorf("contacts: encode %s: %w", c.ID, err)
	}
	out := &switchboardv1.ContactDetail{}
	if err := proto.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("contacts: decode %s as detail: %w", c.ID, err)
	}
	// The wire format drops empty lists; both are always arrays.
	out.Tags = nonNil(out.Tags)
	out.Cards = make([]*switchboardv1.ContactCardLinkDetail, 0, len(links))
	for _, l := range links {
		cd := l.Edges.Card
		assignee := cd.Assignee.String()
		if assignee == "" {
			assignee = "human"
		}
		out.Cards = append(out.Cards, &switchboardv1.ContactCardLinkDetail{
			Id: l.ID, CardId: l.CardID, ContactId: l.ContactID, Role: l.Role,
			Involvement: l.Involvement, CanDelegate: l.CanDelegate, CreatedAt: timestamppb.New(l.CreatedAt),
			Card: &switchboardv1.CardBrief{
				Id: cd.ID, Title: cd.Title, Status: cd.Status.String(), Priority: cd.Priority.String(),
				Assignee: assignee, DueDate: optTime(cd.DueDate),
			},
		})
	}
	return out, nil
}

func optTime(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
