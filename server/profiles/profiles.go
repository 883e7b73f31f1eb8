package profiles

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/project"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	"github.com/switchboard-hq/switchboard/ent/providercapability"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/ent/userreputation"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/membership"
)

// level is the viewer a caller is: an insider (the user, a team's member),
// else the network, else anyone.
func level(insider, network bool) Viewer {
	switch {
	case insider:
		return Insider
	case network:
		return Network
	}
	return Anonymous
}

// GetProfile answers a user's profile to whom its visibility shows it; to
// anyone else it is 404, as an unknown id is.
func (s *Service) GetProfile(ctx context.Context, req *switchboardv1.GetProfileRequest) (*switchboardv1.GetProfileResponse, error) {
	viewerID, network, err := s.viewer(ctx)
	if err != nil {
		return nil, err
	}
	id := req.GetUserId()
	u, err := s.DB.User.Query().Where(user.ID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("profile %q not found", id)
	}
	if err != nil {
		return nil, err
	}
	visibility, bio, err := Of(ctx, s.DB.Client, u.ID)
	if err != nil {
		return nil, err
	}
	if !Sees(level(viewerID == u.ID, network), visibility) {
		return nil, apperr.NotFound("profile %q not found", id)
	}
	out := &switchboardv1.GetProfileResponse{Id: u.ID, Name: u.Name, Username: u.Username, Avatar: u.Avatar, Bio: bio}
	caps, err := s.DB.ProviderCapability.Query().Where(providercapability.UserID(u.ID)).
		Order(ent.Asc(providercapability.FieldCreatedAt), ent.Asc(providercapability.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out.Capabilities = lists.Map(caps, capabilityProto)
	rep, err := s.DB.UserReputation.Query().Where(userreputation.UserID(u.ID)).Only(ctx)
	switch {
	case err == nil:
		out.Reputation = reputationProto(rep)
	case !ent.IsNotFound(err):
		return nil, err
	}
	teams, err := s.DB.Team.Query().Where(team.VisibilityEQ(team.VisibilityPublic),
		team.HasMembersWith(teammember.UserID(u.ID))).Order(ent.Asc(team.FieldName), ent.Asc(team.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out.Teams = lists.Map(teams, teamProto)
	projects, err := s.DB.Project.Query().Where(project.VisibilityEQ(project.VisibilityPublic),
		project.HasMembersWith(projectmember.UserID(u.ID))).Order(ent.Asc(project.FieldName), ent.Asc(project.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out.Projects = lists.Map(projects, projectProto)
	return out, nil
}

// GetTeamProfile answers a team's profile to whom its visibility shows it
// (a private team to its members); to anyone else it is 404.
func (s *Service) GetTeamProfile(ctx context.Context, req *switchboardv1.GetTeamProfileRequest) (*switchboardv1.GetTeamProfileResponse, error) {
	viewerID, network, err := s.viewer(ctx)
	if err != nil {
		return nil, err
	}
	id := req.GetId()
	t, err := s.DB.Team.Query().Where(team.ID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("team %q not found", id)
	}
	if err != nil {
		return nil, err
	}
	role := ""
	if viewerID != "" {
		if role, err = membership.TeamRole(ctx, s.DB.Client, t.ID, viewerID); err != nil {
			return nil, err
		}
	}
	if !Sees(level(role != "", network), string(t.Visibility)) {
		return nil, apperr.NotFound("team %q not found", id)
	}
	count, err := s.DB.TeamMember.Query().Where(teammember.TeamID(t.ID)).Count(ctx)
	if err != nil {
		return nil, err
	}
	projects, err := s.DB.Project.Query().Where(project.TeamID(t.ID), project.VisibilityEQ(project.VisibilityPublic)).
		Order(ent.Asc(project.FieldName), ent.Asc(project.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetTeamProfileResponse{Team: teamProto(t), MemberCount: int32(count),
		Projects: lists.Map(projects, projectProto)}, nil
}

// Of is a user's profile visibility and bio: the settings row's, public and
// "" for an account without one (the hub's accounts of its spokes).
func Of(ctx context.Context, c *ent.Client, userID string) (visibility, bio string, err error) {
	row, err := c.Setting.Query().Where(setting.UserID(userID)).
		Select(setting.FieldProfileVisibility, setting.FieldBio).Only(ctx)
	if ent.IsNotFound(err) {
		return string(vocab.ProfileVisibilityPublic), "", nil
	}
	if err != nil {
		return "", "", err
	}
	return string(row.ProfileVisibility), row.Bio, nil
}
