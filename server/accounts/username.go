package accounts

import (
	"regexp"
	"slices"
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
