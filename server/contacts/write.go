package contacts

import (
	"context"
	"fmt"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/cardcontact"
	"github.com/switchboard-hq/switchboard/ent/contact"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// Added is published in the unit of work that adds one of an account's
// contacts (onboarding's contact step hears it).
type Added struct{ UserID, ContactID string }

// CreateContact adds a contact.
func (s *Service) CreateContact(ctx context.Context, req *switchboardv1.CreateContactRequest) (*switchboardv1.CreateContactResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	e, err := parseInput(req.GetContact(), true)
	if err != nil {
		return nil, err
	}
	d, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.ContactDetail, error) {
		now := s.now()
		create := tx.Contact.Create().SetUserID(p.UserID).SetCreatedAt(now).SetUpdatedAt(now)
		if err := e.apply(create.Mutation()); err != nil {
			return nil, err
		}
		provenance.SetCreated[contact.CreatedBy, contact.TextBy](create.Mutation(), provenance.Of(ctx))
		c, err := create.Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := s.record(ctx, tx, p, "contact_added", "Added contact "+c.Name, c, nil); err != nil {
			return nil, err
		}
		if err := tx.Publish(ctx, Added{UserID: p.UserID, ContactID: c.ID}); err != nil {
			return nil, err
		}
		return detail(ctx, tx.Client(), p.UserID, c)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateContactResponse{Contact: d}, nil
}

// UpdateContact changes the supplied fields.
func (s *Service) UpdateContact(ctx context.Context, req *switchboardv1.UpdateContactRequest) (*switchboardv1.UpdateContactResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetId() == "" {
		return nil, apperr.Invalid("id is required")
	}
	e, err := parseInput(req.GetContact(), false)
	if err != nil {
		return nil, err
	}
	d, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.ContactDetail, error) {
		before, err := find(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return nil, err
		}
		update := tx.Contact.UpdateOneID(req.GetId()).Where(contact.UserID(p.UserID)).SetUpdatedAt(s.now())
		if err := e.apply(update.Mutation()); err != nil {
			return nil, err
		}
		setText(update.Mutation(), e.textAfter(before, provenance.Of(ctx)))
		c, err := update.Save(ctx)
		if ent.IsNotFound(err) { // deleted since find
			return nil, apperr.NotFound("contact %q not found", req.GetId())
		} else if err != nil {
			return nil, err
		}
		if err := s.record(ctx, tx, p, "contact_updated", "Updated contact "+c.Name, c,
			map[string]any{"fields": e.supplied}); err != nil {
			return nil, err
		}
		return detail(ctx, tx.Client(), p.UserID, c)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateContactResponse{Contact: d}, nil
}

// DeleteContact removes a contact and its card links, and answers the contact
// as it was.
func (s *Service) DeleteContact(ctx context.Context, req *switchboardv1.DeleteContactRequest) (*switchboardv1.DeleteContactResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	d, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.ContactDetail, error) {
		c, err := find(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return nil, err
		}
		d, err := detail(ctx, tx.Client(), p.UserID, c)
		if err != nil {
			return nil, err
		}
		// The foreign key cascades too; deleting the links here does not
		// depend on the database enforcing it.
		if _, err := tx.CardContact.Delete().Where(cardcontact.ContactID(c.ID)).Exec(ctx); err != nil {
			return nil, err
		}
		err = tx.Contact.DeleteOneID(c.ID).Where(contact.UserID(p.UserID)).Exec(ctx)
		if ent.IsNotFound(err) { // deleted since find
			return nil, apperr.NotFound("contact %q not found", c.ID)
		} else if err != nil {
			return nil, err
		}
		cardIDs := make([]string, 0, len(d.Cards))
		for _, l := range d.Cards {
			cardIDs = append(cardIDs, l.CardId)
		}
		return d, s.record(ctx, tx, p, "contact_deleted", "Deleted contact "+c.Name, c, map[string]any{"cardIds": cardIDs})
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteContactResponse{Contact: d}, nil
}

// record writes the activity entry of a contact action in tx.
func (s *Service) record(ctx context.Context, tx *db.Tx, p *auth.Principal, action, summary string, c *ent.Contact, meta map[string]any) error {
	if meta == nil {
		meta = map[string]any{}
	}
	meta["contactId"] = c.ID
	err := activity.Write(ctx, tx, activity.Entry{
		UserID: p.UserID, Action: action, Actor: p.Actor(), Summary: summary, Metadata: meta, At: s.now(),
	})
	if err != nil {
		return apperr.Internal(fmt.Errorf("contacts: %w", err))
	}
	return nil
}
