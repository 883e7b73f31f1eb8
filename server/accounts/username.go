package accounts

import (
	"context"
	"regexp"
	"slices"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// Username rules (docs/decisions.md "Accounts, keys, sessions").
const (
	minUsername = 2
	maxUsername = 30
)

var usernameChars = regexp.MustCompile(`^[a-z0-9_.-]+$`)

// reserved are names that would impersonate the product or collide with routes.
var reserved = []string{
	"admin", "administrator", "system", "support", "help", "api", "www", "mail", "root",
	"settings", "login", "logout", "signup", "setup", "docs", "status", "switchboard",
	"assistant", "operator", "team", "teams", "user", "users", "me", "null", "undefined",
	"security", "billing", "marketplace", "store", "webhook", "webhooks", "healthz",
}

// usernameProblem says why name cannot be a username, or "" when it can
// (uniqueness aside).
func usernameProblem(name string) string {
	switch {
	case len(name) < minUsername || len(name) > maxUsername:
		return "username must be 2 to 30 characters"
	case !usernameChars.MatchString(name):
		return "username may contain only lowercase letters, digits, '_', '.' and '-'"
	case slices.Contains(reserved, name):
		return "username is reserved"
	}
	return ""
}

// UsernameProblem says why name cannot be a username or a team's handle
// (one namespace, RULINGS "Teams, projects, invites, profiles"), or "".
func UsernameProblem(name string) string { return usernameProblem(name) }

// HandleTaken reports whether a user or a team holds name, in tx, after
// taking the name's lock: a signup and a team's handle racing for one name
// serialize on it, as no one index spans both tables.
func HandleTaken(ctx context.Context, tx *db.Tx, name string) (bool, error) {
	if err := tx.Serialize(ctx, "handle "+name); err != nil {
		return false, err
	}
	return handleInUse(ctx, tx.Client(), name)
}

func handleInUse(ctx context.Context, c *ent.Client, name string) (bool, error) {
	if taken, err := c.User.Query().Where(user.Username(name)).Exist(ctx); err != nil || taken {
		return taken, err
	}
	return c.Team.Query().Where(team.Handle(name)).Exist(ctx)
}
