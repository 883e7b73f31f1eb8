package groups

import (
	"context"
	"fmt"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
)

// OpenProject makes a private project led by userID in the caller's unit of
// work (onboarding's "Getting started"), with project_created.
func (s *Core) OpenProject(ctx context.Context, tx *db.Tx, userID, name, description, actor string) (*ent.Project, error) {
	now := s.now()
	create := tx.Project.Create().SetName(name).SetColor(DefaultColor).SetLeadID(userID).SetCreatedAt(now).SetUpdatedAt(now)
	if description != "" {
		create.SetDescription(description)
	}
	pr, err := create.Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := tx.ProjectMember.Create().SetProjectID(pr.ID).SetUserID(userID).SetRole(projectmember.RoleLead).
		SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
		return nil, err
	}
	return pr, activity.Write(ctx, tx, activity.Entry{UserID: userID, Action: "project_created", Actor: actor, At: now,
		Summary: fmt.Sprintf("Created project %q", pr.Name), Metadata: map[string]any{"projectId": pr.ID}})
}

// LedProject answers a project userID leads as its lead reads it; another
// (or a deleted) project is nil.
func LedProject(ctx context.Context, c *ent.Client, userID, id string) (*switchboardv1.Project, error) {
	pr, err := c.Project.Get(ctx, id)
	if ent.IsNotFound(err) || (err == nil && pr.LeadID != userID) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	n, err := projectSize(ctx, c, pr.ID)
	if err != nil {
		return nil, err
	}
	return toProject(pr, string(projectmember.RoleLead), n), nil
}
