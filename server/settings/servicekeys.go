package settings

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent/schema"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// Limits of the serviceKeys setting.
const (
	MaxServiceKeys = 10
	minSecret      = 16
	maxSecret      = 512
)

// services are the known service names: push webhooks, and the
// integrations capability packs need (capabilities.proto,
// integrationType), whose entry is the integration's endpoint and token.
var services = vocab.Values("service")

// clearable are the JSON names clearFields accepts.
var clearable = []string{"serviceKeys", fieldHiddenColumns}

// cleared is what an update's clearFields names.
type cleared struct{ serviceKeys, hiddenColumns bool }

// checkClearFields refuses names that cannot be cleared and a field both set
// and cleared; it answers which fields are cleared.
func checkClearFields(req *switchboardv1.UpdateSettingsRequest) (c cleared, err error) {
	for _, name := range req.GetClearFields() {
		if !slices.Contains(clearable, name) {
			return cleared{}, apperr.Invalid("clearFields: %q cannot be cleared (clearable: %s)", name, strings.Join(clearable, ", "))
		}
		c.serviceKeys = c.serviceKeys || name == "serviceKeys"
		c.hiddenColumns = c.hiddenColumns || name == fieldHiddenColumns
	}
	if c.serviceKeys && len(req.GetServiceKeys()) > 0 {
		return cleared{}, apperr.Invalid("serviceKeys is both set and cleared")
	}
	if c.hiddenColumns && len(req.GetHiddenBoardColumns()) > 0 {
		return cleared{}, apperr.Invalid("hiddenBoardColumns is both set and cleared")
	}
	return c, nil
}

// checkServiceKeys validates the supplied entries without the database: their
// shape, the limits, and the address rule (docs/decisions.md "Store,
// federation, MCP, A2A"). Secrets are merged later, in the transaction.
func checkServiceKeys(ctx context.Context, in []*switchboardv1.ServiceKeyInput, policy egress.Policy) error {
	if len(in) > MaxServiceKeys {
		return apperr.Invalid("serviceKeys: at most %d entries", MaxServiceKeys)
	}
	seen := map[string]bool{}
	for i, k := range in {
		if err := apperr.OneOf("serviceKeys["+itoa(i)+"].service", k.GetService(), services); err != nil {
			return err
		}
		u, err := egress.ParseURL(k.GetUrl())
		if err != nil {
			return apperr.Invalid("serviceKeys[%d]: %v", i, err)
		}
		if seen[k.GetUrl()] {
			return apperr.Invalid("serviceKeys[%d]: url is listed twice", i)
		}
		seen[k.GetUrl()] = true
		if k.Secret != nil {
			if n := utf8.RuneCountInString(k.GetSecret()); n < minSecret || n > maxSecret {
				return apperr.Invalid("serviceKeys[%d].secret must be %d to %d characters", i, minSecret, maxSecret)
			}
		}
		if err := policy.CheckURL(ctx, u); err != nil {
			// The refusal names the flag that would admit the address.
			return apperr.Invalid("serviceKeys[%d]: %v", i, err)
		}
	}
	return nil
}

// mergeSecrets builds the stored list: an entry without a secret keeps the
// secret its url has now, and a url that has none must bring one.
func mergeSecrets(in []*switchboardv1.ServiceKeyInput, current []schema.ServiceKey) ([]schema.ServiceKey, error) {
	out := make([]schema.ServiceKey, len(in))
	for i, k := range in {
		out[i] = schema.ServiceKey{Service: k.GetService(), URL: k.GetUrl(), Secret: k.GetSecret()}
		if k.Secret != nil {
			continue
		}
		j := slices.IndexFunc(current, func(c schema.ServiceKey) bool {
			return c.Service == k.GetService() && c.URL == k.GetUrl() && c.Secret != ""
		})
		if j < 0 {
			return nil, apperr.Invalid("serviceKeys[%d].secret is required for a url not configured yet", i)
		}
		out[i].Secret = current[j].Secret
	}
	return out, nil
}

// view is the list as answered: never the secrets.
func view(keys []schema.ServiceKey) []*switchboardv1.ServiceKey {
	out := make([]*switchboardv1.ServiceKey, len(keys))
	for i, k := range keys {
		out[i] = &switchboardv1.ServiceKey{Service: k.Service, Url: k.URL, SecretSet: k.Secret != ""}
	}
	return out
}
