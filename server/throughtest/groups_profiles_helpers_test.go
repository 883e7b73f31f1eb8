package throughtest

import (
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The helpers of the profiles' tests and the teams beyond their members (issue 28, points 7 and 8).

// newTeam makes a team owned by owner and answers its id.
func newTeam(t *testing.T, owner *servertest.Account, body map[string]any) string {
	t.Helper()
	res := owner.Session.Do(http.MethodPost, "/api/teams", body)
	servertest.WantStatus(t, res, http.StatusCreated)
	return res.JSON(t)["team"].(map[string]any)["id"].(string)
}

// joinTeam adds a local user to a team as a member.
func joinTeam(t *testing.T, owner *servertest.Account, teamID string, member *servertest.Account) {
	t.Helper()
	servertest.WantStatus(t, owner.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/members",
		map[string]any{"userId": member.ID}), http.StatusCreated)
}

// newProject makes a project led by lead and answers its id.
func newProject(t *testing.T, lead *servertest.Account, body map[string]any) string {
	t.Helper()
	res := lead.Session.Do(http.MethodPost, "/api/projects", body)
	servertest.WantStatus(t, res, http.StatusCreated)
	return res.JSON(t)["project"].(map[string]any)["id"].(string)
}

// setProfile patches the account's profile settings.
func setProfile(t *testing.T, a *servertest.Account, body map[string]any) {
	t.Helper()
	servertest.WantStatus(t, a.Session.Do(http.MethodPatch, "/api/v2/settings", body), http.StatusOK)
}
