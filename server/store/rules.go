package store

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Enumerated values of a listing (store.proto). The
// sync and self-registration sets of category and pricing model differ; a
// listing accepts either.
var (
	Categories     = vocab.Values("store_category")
	PricingModels  = vocab.Values("pricing_model")
	InputFormats   = vocab.Values("input_format")
	AuthMethods    = vocab.Values("auth_method")
	Availabilities = vocab.Values("availability")
	// WidgetTypes are AgentWidgetData's types.
	WidgetTypes = vocab.Values("widget_type")
)

// Statuses of a listing (store.proto), plus suspended:
// the cascade of a deactivated instance.
const (
	StatusPending       = string(vocab.ListingStatusPending)
	StatusPendingReview = string(vocab.ListingStatusPendingReview)
	StatusActive        = string(vocab.ListingStatusActive)
	StatusRejected      = string(vocab.ListingStatusRejected)
	StatusDisabled      = string(vocab.ListingStatusDisabled)
	StatusSuspended     = string(vocab.ListingStatusSuspended)
)

// ReviewPolicy decides what a new listing and a breaking change go through
// (docs/decisions.md "Store, federation, MCP, A2A").
type ReviewPolicy string

// The policies.
const (
	// ZeroGate lists new listings at once, and a breaking change keeps them
	// listed (re-review is immediate approval).
	ZeroGate ReviewPolicy = "zero-gate"
	// Review puts new listings and breaking changes before an admin.
	Review ReviewPolicy = "review"
)

// ParsePolicy reads a policy name; empty means zero-gate, the default of a
// standalone instance.
func ParsePolicy(s string) (ReviewPolicy, error) {
	switch ReviewPolicy(s) {
	case "", ZeroGate:
		return ZeroGate, nil
	case Review:
		return Review, nil
	}
	return "", fmt.Errorf("review policy %q is not one of %s, %s", s, ZeroGate, Review)
}

// InitialStatus is the status of a listing made with POST /api/marketplace.
func (p ReviewPolicy) InitialStatus() string {
	if p == Review {
		return StatusPendingReview
	}
	return StatusActive
}

// breakingFields are the changes that trigger re-review (docs/decisions.md
// "Store, federation, MCP, A2A"): endpoint, auth method, pricing
// model. Everything else applies at once.
var breakingFields = []string{"endpointUrl", "authMethod", "pricingModel"}

// Breaking answers the breaking fields among changed (JSON names), in the
// order given.
func Breaking(changed []string) []string {
	var out []string
	for _, f := range changed {
		if slices.Contains(breakingFields, f) {
			out = append(out, f)
		}
	}
	return out
}

// StatusAfterChange is a listing's status after an owner's change. Under the
// review policy a breaking change sends a listed (or rejected) agent back to
// review; under zero-gate re-review approves at once. A listing waiting for
// review or the ship-gate stays waiting, and only an admin lifts disabled or
// suspended.
func (p ReviewPolicy) StatusAfterChange(status string, breaking bool) string {
	if breaking && p == Review && (status == StatusActive || status == StatusRejected) {
		return StatusPendingReview
	}
	return status
}

// ShipGateAfterChange is a self-registered agent's status after a change:
// breaking changes re-review on every update path (docs/decisions.md "Store,
// federation, MCP, A2A"), so a listed or rejected agent goes back to pending,
// which only an admin lifts, with a ship-gate run that passed after the change.
func ShipGateAfterChange(status string, breaking bool) string {
	if breaking && (status == StatusActive || status == StatusRejected) {
		return StatusPending
	}
	return status
}

// Versions are MAJOR.MINOR.PATCH with an optional pre-release, no "v".
const initialVersion = "1.0.0"

// checkVersion refuses anything but a full MAJOR.MINOR.PATCH version.
func checkVersion(v string) error {
	if strings.HasPrefix(v, "v") || semver.Canonical("v"+v) != "v"+v {
		return fmt.Errorf("version %q must be MAJOR.MINOR.PATCH (such as 1.2.0)", v)
	}
	return nil
}

// compareVersions is semver order: negative when a < b.
func compareVersions(a, b string) int { return semver.Compare("v"+a, "v"+b) }

// bumpVersion answers the version after a change: the next major for a
// breaking change, the next patch otherwise; a pre-release is dropped.
func bumpVersion(v string, breaking bool) string {
	core := strings.TrimPrefix(semver.Canonical("v"+v), "v")
	core, _, _ = strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return initialVersion
	}
	major, _ := strconv.Atoi(parts[0])
	minor, _ := strconv.Atoi(parts[1])
	patch, _ := strconv.Atoi(parts[2])
	if breaking {
		return fmt.Sprintf("%d.0.0", major+1)
	}
	return fmt.Sprintf("%d.%d.%d", major, minor, patch+1)
}

// Slugs: lowercase letters and digits in words joined by "-".
const (
	minSlug = 2
	maxSlug = 64
)

// checkSlug refuses a slug that is not lowercase words joined by "-".
func checkSlug(s string) error {
	ok := len(s) >= minSlug && len(s) <= maxSlug && s[0] != '-' && s[len(s)-1] != '-' && !strings.Contains(s, "--")
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("slug %q must be %d to %d lowercase letters and digits in words joined by \"-\"", s, minSlug, maxSlug)
	}
	return nil
}

// slugFrom derives a slug from a name: ASCII letters and digits lowercased,
// every other run of characters one "-". It may answer an invalid slug (too
// short) for names without enough of them; the caller checks.
func slugFrom(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	s := b.String()
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "-")
	}
	return s
}

// SyncedSlug is the slug of a listing synced from another instance: slug
// as given, or derived from name when empty, checked as every slug is.
func SyncedSlug(name, slug string) (string, error) {
	if slug == "" {
		slug = slugFrom(name)
	}
	return slug, checkSlug(slug)
}

// CheckVersion refuses anything but a full MAJOR.MINOR.PATCH version.
func CheckVersion(v string) error { return checkVersion(v) }
