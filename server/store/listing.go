package store

import (
	"bytes"
	"slices"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// listing is the owner-written state of a listing: what create and update
// write, and what a change is measured against.
type listing struct {
	name, slug                                        string
	description, endpointURL, developerName           *string
	category                                          *string
	pricingModel                                      string
	price                                             money.Cents
	currency                                          string
	pricingConfig                                     *schema.PricingConfig
	installGuide                                      *string
	commands                                          []schema.AgentCommand
	taskTypes                                         []string
	contextInstructions                               *string
	supportsA2A, supportsMCP                          bool
	version                                           string
	passwordHash                                      *string
	inputFormat                                       string
	outputFormat                                      *string
	authMethod                                        string
	credential                                        []byte // sealed
	healthCheckURL                                    *string
	widgetTypes                                       []string
	availability                                      string
	executionTimeout                                  int
	requiredInputSchema, outputSchema                 *string
	usageExamples, contextPreparation, executionNotes *string
}

// newListing is the state a create starts from: the defaults.
func newListing() listing {
	return listing{
		pricingModel: "free", currency: "USD", version: initialVersion, inputFormat: "text",
		authMethod: "none", availability: "available", executionTimeout: defaultTimeout,
		commands: []schema.AgentCommand{}, taskTypes: []string{}, widgetTypes: []string{},
	}
}

func fromEnt(a *ent.StoreAgent) listing {
	return listing{
		name: a.Name, slug: a.Slug, description: a.Description, endpointURL: a.EndpointURL,
		developerName: a.DeveloperName, category: a.Category, pricingModel: a.PricingModel,
		price: a.PricePerTask, currency: a.Currency, pricingConfig: a.PricingConfig,
		installGuide: a.InstallGuide, commands: nonNil(a.Commands), taskTypes: nonNil(a.TaskTypes),
		contextInstructions: a.ContextInstructions, supportsA2A: a.SupportsA2a, supportsMCP: a.SupportsMcp,
		version: a.Version, passwordHash: a.AccessPasswordHash, inputFormat: string(a.InputFormat),
		outputFormat: a.OutputFormat, authMethod: string(a.AuthMethod), credential: derefBytes(a.AuthCredentialEncrypted),
		healthCheckURL: a.HealthCheckURL, widgetTypes: nonNil(a.DeclaredWidgetTypes),
		availability: string(a.Availability), executionTimeout: a.ExecutionTimeout,
		requiredInputSchema: a.RequiredInputSchema, outputSchema: a.OutputSchema, usageExamples: a.UsageExamples,
		contextPreparation: a.ContextPreparation, executionNotes: a.ExecutionNotes,
	}
}

// secrets are a patch's secrets made storable outside any transaction: the
// password hashed, the credential sealed for its row.
type secrets struct {
	passwordHash *string // "" clears
	credential   []byte
}

// merge applies a patch to the current state and checks that the result is
// a consistent listing. It answers the new state and the JSON names of the
// fields whose stored value changed.
func merge(cur listing, p *patch, s secrets) (listing, []string, error) {
	next := cur
	next.commands, next.taskTypes, next.widgetTypes = slices.Clone(cur.commands), slices.Clone(cur.taskTypes), slices.Clone(cur.widgetTypes)
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	setOpt := func(dst **string, v *string) {
		if v == nil {
			return
		}
		if *v == "" {
			*dst = nil
			return
		}
		c := *v
		*dst = &c
	}
	set(&next.name, p.name)
	set(&next.slug, p.slug)
	setOpt(&next.endpointURL, p.endpointURL)
	setOpt(&next.healthCheckURL, p.healthCheckURL)
	setOpt(&next.category, p.category)
	set(&next.pricingModel, p.pricingModel)
	set(&next.currency, p.currency)
	set(&next.inputFormat, p.inputFormat)
	set(&next.authMethod, p.authMethod)
	set(&next.availability, p.availability)
	for _, f := range textFields {
		if v, ok := p.texts[f.wire]; ok {
			setOpt(f.at(&next), &v)
		}
	}
	if p.price != nil {
		next.price = *p.price
	}
	switch {
	case p.pricingConfig != nil:
		next.pricingConfig = p.pricingConfig
	case p.clearPricingConfig:
		next.pricingConfig = nil
	}
	if p.commands != nil {
		next.commands = p.commands
	}
	if p.taskTypes != nil {
		next.taskTypes = p.taskTypes
	}
	if p.widgetTypes != nil {
		next.widgetTypes = p.widgetTypes
	}
	if p.supportsA2A != nil {
		next.supportsA2A = *p.supportsA2A
	}
	if p.supportsMCP != nil {
		next.supportsMCP = *p.supportsMCP
	}
	if p.executionTimeout != nil {
		next.executionTimeout = *p.executionTimeout
	}
	setOpt(&next.passwordHash, s.passwordHash)
	if err := mergePricing(&next, p); err != nil {
		return listing{}, nil, err
	}
	if err := mergeAuth(cur, &next, p, s); err != nil {
		return listing{}, nil, err
	}
	changed := diff(cur, next, p)
	if p.version != nil {
		next.version = *p.version
	}
	return next, changed, nil
}

// mergePricing keeps the price consistent with the model: free costs 0
// (switching to free resets the price), per_task and subscription need a
// price, tiered needs tiers, dynamic needs an estimate range, and a
// pricingConfig.model names the listing's model.
func mergePricing(next *listing, p *patch) error {
	if next.pricingModel == "free" {
		if p.price != nil && *p.price != 0 {
			return apperr.Invalid("a free agent has no price: pricePerTask must be 0")
		}
		next.price = 0
	}
	switch next.pricingModel {
	case "per_task", "subscription":
		if next.price <= 0 {
			return apperr.Invalid("pricing model %s needs pricePerTask above 0", next.pricingModel)
		}
	case "tiered":
		if next.pricingConfig == nil || len(next.pricingConfig.Tiers) == 0 {
			return apperr.Invalid("pricing model tiered needs pricingConfig.tiers")
		}
	case "dynamic":
		if next.pricingConfig == nil || next.pricingConfig.DynamicConfig == nil {
			return apperr.Invalid("pricing model dynamic needs pricingConfig.dynamicConfig")
		}
	}
	if c := next.pricingConfig; c != nil && c.Model != "" && c.Model != next.pricingModel {
		return apperr.Invalid("pricingConfig.model %q differs from pricingModel %q", c.Model, next.pricingModel)
	}
	return nil
}

// mergeAuth keeps the credential consistent with the auth method: none has
// none (switching to none drops the stored one), every other method has one,
// and a change to another method brings its own credential.
func mergeAuth(cur listing, next *listing, p *patch, s secrets) error {
	if next.authMethod == "none" {
		if p.credential != nil {
			return apperr.Invalid("authCredential is only for authMethod bearer, api_key or hmac")
		}
		next.credential = nil
		return nil
	}
	if p.credential != nil {
		if next.authMethod == "hmac" && len(*p.credential) < minHMACSecret {
			return apperr.Invalid("an hmac authCredential must be at least %d characters", minHMACSecret)
		}
		next.credential = s.credential
		return nil
	}
	if next.authMethod != cur.authMethod || len(next.credential) == 0 {
		return apperr.Invalid("authMethod %s needs authCredential in the same request", next.authMethod)
	}
	return nil
}

// diff answers the JSON names of the fields whose stored value differs. A
// supplied credential or password counts as a change: neither is compared
// with what is stored.
func diff(a, b listing, p *patch) []string {
	var out []string
	add := func(name string, same bool) {
		if !same {
			out = append(out, name)
		}
	}
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	add("name", a.name == b.name)
	add("slug", a.slug == b.slug)
	add("description", eq(a.description, b.description))
	add("endpointUrl", eq(a.endpointURL, b.endpointURL))
	add("developerName", eq(a.developerName, b.developerName))
	add("category", eq(a.category, b.category))
	add("pricingModel", a.pricingModel == b.pricingModel)
	add("pricePerTask", a.price == b.price)
	add("currency", a.currency == b.currency)
	add("pricingConfig", cmp.Equal(a.pricingConfig, b.pricingConfig))
	add("installGuide", eq(a.installGuide, b.installGuide))
	add("commands", cmp.Equal(a.commands, b.commands))
	add("taskTypes", slices.Equal(a.taskTypes, b.taskTypes))
	add("contextInstructions", eq(a.contextInstructions, b.contextInstructions))
	add("supportsA2A", a.supportsA2A == b.supportsA2A)
	add("supportsMCP", a.supportsMCP == b.supportsMCP)
	add("accessPassword", p.password == nil || (*p.password == "" && a.passwordHash == nil))
	add("inputFormat", a.inputFormat == b.inputFormat)
	add("outputFormat", eq(a.outputFormat, b.outputFormat))
	add("authMethod", a.authMethod == b.authMethod)
	add("authCredential", p.credential == nil && bytes.Equal(a.credential, b.credential))
	add("healthCheckUrl", eq(a.healthCheckURL, b.healthCheckURL))
	add("declaredWidgetTypes", slices.Equal(a.widgetTypes, b.widgetTypes))
	add("availability", a.availability == b.availability)
	add("executionTimeout", a.executionTimeout == b.executionTimeout)
	add("requiredInputSchema", eq(a.requiredInputSchema, b.requiredInputSchema))
	add("outputSchema", eq(a.outputSchema, b.outputSchema))
	add("usageExamples", eq(a.usageExamples, b.usageExamples))
	add("contextPreparation", eq(a.contextPreparation, b.contextPreparation))
	add("executionNotes", eq(a.executionNotes, b.executionNotes))
	return out
}

// kitChanged reports whether a change touches what installing writes into
// memory (the integration kit, and the name and description of the overview).
func kitChanged(changed []string) bool {
	for _, f := range changed {
		switch f {
		case "name", "slug", "description", "inputFormat", "taskTypes", "contextInstructions", "requiredInputSchema",
			"outputSchema", "usageExamples", "contextPreparation", "executionNotes":
			return true
		}
	}
	return false
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func derefBytes(b *[]byte) []byte {
	if b == nil {
		return nil
	}
	return *b
}
