package developer

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/widgettemplate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/widgets"
)

// A template's widget is stored as the contract's JSON; unknown fields of a
// later contract are kept out of the way rather than failing a read.
var (
	widgetOut = protojson.MarshalOptions{}
	widgetIn  = protojson.UnmarshalOptions{DiscardUnknown: true}
)

func toTemplate(t *ent.WidgetTemplate) (*switchboardv1.WidgetTemplate, error) {
	w := &switchboardv1.AgentWidgetData{}
	if err := widgetIn.Unmarshal([]byte(t.Widget), w); err != nil {
		return nil, apperr.Internal(fmt.Errorf("widget template %s: stored widget: %w", t.ID, err))
	}
	return &switchboardv1.WidgetTemplate{Id: t.ID, Name: t.Name, Widget: w, CreatedAt: ts(t.CreatedAt), UpdatedAt: ts(t.UpdatedAt)}, nil
}

// templateInput checks a template's name and widget (against its type,
// server/widgets' CheckShape) and answers them as stored.
func templateInput(name string, w *switchboardv1.AgentWidgetData) (string, string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", "", apperr.Invalid("name is required")
	}
	if err := widgets.CheckShape("widget", w); err != nil {
		return "", "", err
	}
	raw, err := widgetOut.Marshal(w)
	if err != nil {
		return "", "", apperr.Internal(fmt.Errorf("widget template: %w", err))
	}
	return name, string(raw), nil
}

// ownTemplate finds the caller's template id; another account's is 404.
func ownTemplate(ctx context.Context, c *ent.Client, userID, id string) (*ent.WidgetTemplate, error) {
	t, err := c.WidgetTemplate.Query().Where(widgettemplate.ID(id), widgettemplate.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("widget template %q not found among your templates", id)
	}
	return t, err
}

// ListWidgetTemplates lists the caller's templates, newest first.
func (p *Portal) ListWidgetTemplates(ctx context.Context, _ *switchboardv1.ListWidgetTemplatesRequest) (*switchboardv1.ListWidgetTemplatesResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := p.dev.DB.WidgetTemplate.Query().Where(widgettemplate.UserID(pr.UserID)).
		Order(ent.Desc(widgettemplate.FieldCreatedAt), ent.Desc(widgettemplate.FieldID)).Limit(maxWidgetTemplates).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListWidgetTemplatesResponse{Templates: make([]*switchboardv1.WidgetTemplate, 0, len(rows))}
	for _, r := range rows {
		t, err := toTemplate(r)
		if err != nil {
			return nil, err
		}
		out.Templates = append(out.Templates, t)
	}
	return out, nil
}

// CreateWidgetTemplate stores a widget example; an account holds at most
// maxWidgetTemplates (409 beyond).
func (p *Portal) CreateWidgetTemplate(ctx context.Context, req *switchboardv1.CreateWidgetTemplateRequest) (*switchboardv1.CreateWidgetTemplateResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	name, widget, err := templateInput(req.GetName(), req.GetWidget())
	if err != nil {
		return nil, err
	}
	var row *ent.WidgetTemplate
	err = p.dev.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := p.dev.DB.Serialize(ctx, tx, "widget_templates:"+pr.UserID); err != nil {
			return err
		}
		n, err := tx.WidgetTemplate.Query().Where(widgettemplate.UserID(pr.UserID)).Count(ctx)
		if err != nil {
			return err
		}
		if n >= maxWidgetTemplates {
			return apperr.Conflict("you already have %d widget templates, the most an account may hold", maxWidgetTemplates)
		}
		row, err = tx.WidgetTemplate.Create().SetUserID(pr.UserID).SetName(name).SetWidget(widget).Save(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	t, err := toTemplate(row)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateWidgetTemplateResponse{Template: t}, nil
}

// GetWidgetTemplate answers one of the caller's templates.
func (p *Portal) GetWidgetTemplate(ctx context.Context, req *switchboardv1.GetWidgetTemplateRequest) (*switchboardv1.GetWidgetTemplateResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	row, err := ownTemplate(ctx, p.dev.DB.Client, pr.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	t, err := toTemplate(row)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetWidgetTemplateResponse{Template: t}, nil
}

// ReplaceWidgetTemplate replaces a template's name and widget, both
// required.
func (p *Portal) ReplaceWidgetTemplate(ctx context.Context, req *switchboardv1.ReplaceWidgetTemplateRequest) (*switchboardv1.ReplaceWidgetTemplateResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	name, widget, err := templateInput(req.GetName(), req.GetWidget())
	if err != nil {
		return nil, err
	}
	var row *ent.WidgetTemplate
	err = p.dev.DB.InTx(ctx, func(tx *db.Tx) error {
		cur, err := ownTemplate(ctx, tx.Client(), pr.UserID, req.GetId())
		if err != nil {
			return err
		}
		row, err = tx.WidgetTemplate.UpdateOneID(cur.ID).SetName(name).SetWidget(widget).Save(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	t, err := toTemplate(row)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReplaceWidgetTemplateResponse{Template: t}, nil
}

// DeleteWidgetTemplate deletes one of the caller's templates.
func (p *Portal) DeleteWidgetTemplate(ctx context.Context, req *switchboardv1.DeleteWidgetTemplateRequest) (*switchboardv1.DeleteWidgetTemplateResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var out *switchboardv1.WidgetTemplate
	err = p.dev.DB.InTx(ctx, func(tx *db.Tx) error {
		row, err := ownTemplate(ctx, tx.Client(), pr.UserID, req.GetId())
		if err != nil {
			return err
		}
		if out, err = toTemplate(row); err != nil {
			return err
		}
		return tx.WidgetTemplate.DeleteOneID(row.ID).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteWidgetTemplateResponse{Template: out}, nil
}
