package groups

import (
	"context"
	"fmt"

	"github.com/switchboard-hq/switchboard/ent/project"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/runes"
	"github.com/switchboard-hq/switchboard/server/activity"
)

// Engagement is the project a hire makes (RULINGS "The task economy"): the
// client's seat is the lead, the provider's a contributor; each is a local
// user or, by connection, the other instance's.
type Engagement struct {
	Name string
	// ClientUserID or ClientConnectionID, ProviderUserID or
	// ProviderConnectionID: one of each.
	ClientUserID, ClientConnectionID     string
	ProviderUserID, ProviderConnectionID string
	// The other instance's project, for the provider's side of a remote
	// engagement (its mirror).
	OriginConnectionID, OriginID string
}

// OpenEngagement makes an engagement project with its two seats in tx and
// answers its id.
func (s *Core) OpenEngagement(ctx context.Context, tx *db.Tx, e Engagement) (string, error) {
	now := s.now()
	lead := cmpOr(e.ClientUserID, e.ClientConnectionID)
	create := tx.Project.Create().SetName(runes.Prefix(e.Name, 200)).SetColor(DefaultColor).SetKind(project.KindEngagement).
		SetLeadID(lead).SetCreatedAt(now).SetUpdatedAt(now)
	if e.OriginID != "" {
		create.SetOriginConnectionID(e.OriginConnectionID).SetOriginID(e.OriginID)
	}
	pr, err := create.Save(ctx)
	if err != nil {
		return "", err
	}
	seat := func(userID, connectionID string, role projectmember.Role) error {
		m := tx.ProjectMember.Create().SetProjectID(pr.ID).SetRole(role).SetCreatedAt(now).SetUpdatedAt(now)
		if userID != "" {
			m.SetUserID(userID)
		} else {
			m.SetConnectionID(connectionID)
		}
		return m.Exec(ctx)
	}
	if err := seat(e.ClientUserID, e.ClientConnectionID, projectmember.RoleLead); err != nil {
		return "", err
	}
	if err := seat(e.ProviderUserID, e.ProviderConnectionID, projectmember.RoleContributor); err != nil {
		return "", err
	}
	for _, u := range []string{e.ClientUserID, e.ProviderUserID} {
		if u == "" {
			continue
		}
		if err := activity.Write(ctx, tx, activity.Entry{UserID: u, Action: "project_created", Actor: "Switchboard", At: now,
			Summary: fmt.Sprintf("Engagement project %q", pr.Name), Metadata: map[string]any{"projectId": pr.ID}}); err != nil {
			return "", err
		}
	}
	return pr.ID, nil
}

// CloseEngagement marks an engagement's project closed.
func (s *Core) CloseEngagement(ctx context.Context, tx *db.Tx, projectID string) error {
	return tx.Project.Update().Where(project.ID(projectID), project.KindEQ(project.KindEngagement)).
		SetStatus(project.StatusClosed).SetUpdatedAt(s.now()).Exec(ctx)
}
