// Package contacts owns the operator's contacts (contacts.proto):
// their list with case-sensitive filters, the two card-link projections, and
// the writes, each recorded in the activity feed in its own transaction.
package contacts

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/cardcontact"
	"github.com/switchboard-hq/switchboard/ent/contact"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
)

// Service implements ContactService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// ListContacts pages the caller's contacts ordered by name, with four-field
// card links.
func (s *Service) ListContacts(ctx context.Context, req *switchboardv1.ListContactsRequest) (*switchboardv1.ListContactsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	where := []predicate.Contact{contact.UserID(p.UserID)}
	if q := req.GetSearch(); q != "" {
		if err := noNUL("search", q); err != nil {
			return nil, err
		}
		where = append(where, containsIn(s.DB.Dialect, q, contact.FieldName, contact.FieldEmail, contact.FieldCompany))
	}
	if t := req.GetTag(); t != "" {
		if err := noNUL("tag", t); err != nil {
			return nil, err
		}
		where = append(where, tagContains(s.DB.Dialect, t))
	}
	total, err := s.DB.Contact.Query().Where(where...).Aggregate(ent.Count()).Int(ctx) // COUNT(*): index only
	if err != nil {
		return nil, err
	}
	var rows []*ent.Contact
	if pg.Offset < total {
		rows, err = s.DB.Contact.Query().Where(where...).Order(byName(s.DB.Dialect)).
			Offset(pg.Offset).Limit(pg.Limit).All(ctx)
		if err != nil {
			return nil, err
		}
	}
	links, err := loadLinks(ctx, s.DB.Client, p.UserID, rows...)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListContactsResponse{
		Contacts:   make([]*switchboardv1.Contact, 0, len(rows)),
		Pagination: pg.Of(total, len(rows)),
	}
	for _, c := range rows {
		out.Contacts = append(out.Contacts, toListContact(c, links[c.ID]))
	}
	return out, nil
}

// GetContact answers one contact with six-field card links.
func (s *Service) GetContact(ctx context.Context, req *switchboardv1.GetContactRequest) (*switchboardv1.GetContactResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	c, err := find(ctx, s.DB.Client, p.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	d, err := detail(ctx, s.DB.Client, p.UserID, c)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetContactResponse{Contact: d}, nil
}

// find loads one of the caller's contacts; another account's id is not found.
func find(ctx context.Context, c *ent.Client, userID, id string) (*ent.Contact, error) {
	if id == "" {
		return nil, apperr.Invalid("id is required")
	}
	row, err := c.Contact.Query().Where(contact.ID(id), contact.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("contact %q not found", id)
	} else if err != nil {
		return nil, err
	}
	return row, nil
}

// detail renders one contact with its six-field card links.
func detail(ctx context.Context, c *ent.Client, userID string, row *ent.Contact) (*switchboardv1.ContactDetail, error) {
	links, err := loadLinks(ctx, c, userID, row)
	if err != nil {
		return nil, err
	}
	d, err := toDetail(row, links[row.ID])
	if err != nil {
		return nil, err
	}
	return d, nil
}

// loadLinks loads the card links of all the given contacts in two queries
// (links, then their cards), keyed by contact id, oldest link first. Only the
// caller's own cards are shown.
func loadLinks(ctx context.Context, c *ent.Client, userID string, contacts ...*ent.Contact) (map[string][]*ent.CardContact, error) {
	if len(contacts) == 0 {
		return nil, nil
	}
	ids := make([]string, len(contacts))
	for i, ct := range contacts {
		ids[i] = ct.ID
	}
	rows, err := c.CardContact.Query().
		Where(cardcontact.ContactIDIn(ids...), cardcontact.UserID(userID),
			cardcontact.HasCardWith(card.UserID(userID))).
		WithCard(func(q *ent.CardQuery) {
			q.Select(card.FieldID, card.FieldTitle, card.FieldStatus, card.FieldPriority,
				card.FieldAssignee, card.FieldDueDate)
		}).
		Order(ent.Asc(cardcontact.FieldCreatedAt), ent.Asc(cardcontact.FieldID)).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]*ent.CardContact, len(contacts))
	for _, l := range rows {
		if l.Edges.Card == nil {
			continue
		}
		out[l.ContactID] = append(out[l.ContactID], l)
	}
	return out, nil
}
