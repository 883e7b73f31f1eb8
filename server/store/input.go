package store

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent/schema"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

type input = switchboardv1.StoreAgentInput

// DefaultExecutionTimeout is a listing's executionTimeout in seconds when
// none is given.
const DefaultExecutionTimeout = 1800

// Lengths and counts are the contract's (store.proto, enforced by
// server/input); what is left here is what the contract cannot say.
const (
	minHMACSecret  = 16
	minPassword    = 8
	maxPassword    = 128
	maxPrice       = 1_000_000
	minTimeout     = 30
	maxTimeout     = 86_400
	defaultTimeout = DefaultExecutionTimeout
)

// textField is one optional text field of StoreAgentInput: a supplied ""
// clears it, like clearFields.
type textField struct {
	wire string
	get  func(*input) *string
	at   func(*listing) **string
	// Multi-line text is kept as given; one-line fields are trimmed.
	multiline bool
	// The field must hold a JSON object.
	object bool
}

var textFields = []textField{
	{"description", func(in *input) *string { return in.Description }, func(l *listing) **string { return &l.description }, true, false},
	{"developerName", func(in *input) *string { return in.DeveloperName }, func(l *listing) **string { return &l.developerName }, false, false},
	{"installGuide", func(in *input) *string { return in.InstallGuide }, func(l *listing) **string { return &l.installGuide }, true, false},
	{"contextInstructions", func(in *input) *string { return in.ContextInstructions }, func(l *listing) **string { return &l.contextInstructions }, true, false},
	{"outputFormat", func(in *input) *string { return in.OutputFormat }, func(l *listing) **string { return &l.outputFormat }, false, false},
	{"requiredInputSchema", func(in *input) *string { return in.RequiredInputSchema }, func(l *listing) **string { return &l.requiredInputSchema }, true, true},
	{"outputSchema", func(in *input) *string { return in.OutputSchema }, func(l *listing) **string { return &l.outputSchema }, true, true},
	{"usageExamples", func(in *input) *string { return in.UsageExamples }, func(l *listing) **string { return &l.usageExamples }, true, false},
	{"contextPreparation", func(in *input) *string { return in.ContextPreparation }, func(l *listing) **string { return &l.contextPreparation }, true, false},
	{"executionNotes", func(in *input) *string { return in.ExecutionNotes }, func(l *listing) **string { return &l.executionNotes }, true, false},
}

// clearable are the JSON names clearFields accepts, in field order.
var clearable = []string{
	"description", "developerName", "category", "pricingConfig", "installGuide", "commands", "taskTypes",
	"contextInstructions", "accessPassword", "outputFormat", "healthCheckUrl", "declaredWidgetTypes",
	"requiredInputSchema", "outputSchema", "usageExamples", "contextPreparation", "executionNotes",
}

// patch is a validated StoreAgentInput, before it meets the stored listing.
// Nil means not supplied; text fields map to "" when cleared.
type patch struct {
	name, slug, endpointURL, healthCheckURL *string
	category, pricingModel, currency        *string
	inputFormat, authMethod, availability   *string
	texts                                   map[string]string
	price                                   *money.Cents
	pricingConfig                           *schema.PricingConfig
	clearPricingConfig                      bool
	commands                                []schema.AgentCommand
	taskTypes, widgetTypes                  []string
	supportsA2A, supportsMCP                *bool
	version                                 *string
	executionTimeout                        *int
	password                                *string // plain, to be hashed; "" clears
	credential                              *string // plain, to be sealed
	notes                                   *string
	// supplied are the JSON names supplied or cleared, in field order.
	supplied []string
}

// parseInput validates what can be validated without the stored listing.
// On create, name and endpointUrl are required and nothing can be cleared;
// on update at least one field must be supplied or cleared.
func parseInput(in *input, create bool) (*patch, error) {
	if in == nil {
		in = &input{}
	}
	if create && len(in.GetClearFields()) > 0 {
		return nil, apperr.Invalid("clearFields is for updates only: a new listing has nothing to clear")
	}
	if create && in.Changelog != nil {
		return nil, apperr.Invalid("changelog is for updates only: it describes a change")
	}
	p := &patch{texts: map[string]string{}}
	var err error
	if p.name, err = oneLine("name", in.Name, true); err != nil {
		return nil, err
	}
	if create && p.name == nil {
		return nil, apperr.Invalid("name is required")
	}
	if in.Slug != nil {
		s := strings.TrimSpace(in.GetSlug())
		if err := checkSlug(s); err != nil {
			return nil, apperr.Invalid("%v", err)
		}
		p.slug = &s
	}
	if p.endpointURL, err = oneLine("endpointUrl", in.EndpointUrl, true); err != nil {
		return nil, err
	}
	if create && p.endpointURL == nil {
		return nil, apperr.Invalid("endpointUrl is required: the store calls the agent there")
	}
	if p.healthCheckURL, err = oneLine("healthCheckUrl", in.HealthCheckUrl, false); err != nil {
		return nil, err
	}
	if err := p.parseEnums(in); err != nil {
		return nil, err
	}
	if err := p.parseTexts(in); err != nil {
		return nil, err
	}
	if err := p.parsePricing(in); err != nil {
		return nil, err
	}
	if err := p.parseLists(in); err != nil {
		return nil, err
	}
	p.supportsA2A, p.supportsMCP = in.SupportsA2A, in.SupportsMcp
	if in.Version != nil {
		v := strings.TrimSpace(in.GetVersion())
		if err := checkVersion(v); err != nil {
			return nil, apperr.Invalid("%v", err)
		}
		p.version = &v
	}
	if in.ExecutionTimeout != nil {
		t := int(in.GetExecutionTimeout())
		if t < minTimeout || t > maxTimeout {
			return nil, apperr.Invalid("executionTimeout must be %d to %d seconds", minTimeout, maxTimeout)
		}
		p.executionTimeout = &t
	}
	if err := p.parseSecrets(in); err != nil {
		return nil, err
	}
	if in.Changelog != nil {
		n := strings.TrimSpace(in.GetChangelog())
		if err := noNUL("changelog", n); err != nil {
			return nil, err
		}
		if n != "" {
			p.notes = &n
		}
	}
	if err := p.parseClears(in); err != nil {
		return nil, err
	}
	p.markSupplied(in)
	if !create && len(p.supplied) == 0 {
		if p.notes != nil {
			return nil, apperr.Invalid("changelog describes a change: supply a field or a version too")
		}
		return nil, apperr.Invalid("no field to update: supply a listing field, or name the fields to clear in " +
			"clearFields (an empty list counts as none)")
	}
	return p, nil
}

func (p *patch) parseEnums(in *input) error {
	enums := []struct {
		wire    string
		v       *string
		allowed []string
		dst     **string
	}{
		{"pricingModel", in.PricingModel, PricingModels, &p.pricingModel},
		{"inputFormat", in.InputFormat, InputFormats, &p.inputFormat},
		{"authMethod", in.AuthMethod, AuthMethods, &p.authMethod},
		{"availability", in.Availability, Availabilities, &p.availability},
	}
	for _, e := range enums {
		if e.v == nil {
			continue
		}
		if err := apperr.OneOf(e.wire, *e.v, e.allowed); err != nil {
			return err
		}
		v := *e.v
		*e.dst = &v
	}
	if in.Category != nil {
		c := in.GetCategory()
		// "" clears, like the other optional fields.
		if c != "" {
			if err := apperr.OneOf("category", c, Categories); err != nil {
				return err
			}
		}
		p.category = &c
	}
	return nil
}

func (p *patch) parseTexts(in *input) error {
	for _, f := range textFields {
		v := f.get(in)
		if v == nil {
			continue
		}
		s := *v
		if !f.multiline || strings.TrimSpace(s) == "" {
			s = strings.TrimSpace(s)
		}
		if err := noNUL(f.wire, s); err != nil {
			return err
		}
		if f.object && s != "" {
			var obj map[string]any
			if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
				return apperr.Invalid("%s must be a JSON object encoded as a string", f.wire)
			}
		}
		p.texts[f.wire] = s
	}
	return nil
}

func (p *patch) parsePricing(in *input) error {
	var given []string
	for _, alias := range []struct {
		wire string
		v    *float64
	}{{"pricePerTask", in.PricePerTask}, {"pricingAmount", in.PricingAmount}, {"price", in.Price}} {
		if alias.v == nil {
			continue
		}
		given = append(given, alias.wire)
		v, err := checkPrice(alias.wire, *alias.v)
		if err != nil {
			return err
		}
		p.price = &v
	}
	if len(given) > 1 {
		return apperr.Invalid("the price is given as %s: give it once", strings.Join(given, " and "))
	}
	if in.Currency != nil {
		c := in.GetCurrency()
		if len(c) != 3 || strings.ToUpper(c) != c || strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return apperr.Invalid("currency %q must be an ISO 4217 code in capitals, such as USD", c)
		}
		p.currency = &c
	}
	if in.PricingConfig != nil {
		c, err := parsePricingConfig(in.GetPricingConfig())
		if err != nil {
			return err
		}
		p.pricingConfig = c
	}
	return nil
}

func parsePricingConfig(in *switchboardv1.PricingConfig) (*schema.PricingConfig, error) {
	c := &schema.PricingConfig{}
	if in.Model != nil {
		if err := apperr.OneOf("pricingConfig.model", in.GetModel(), PricingModels); err != nil {
			return nil, err
		}
		c.Model = in.GetModel()
	}
	for i, t := range in.GetTiers() {
		name := strings.TrimSpace(t.GetName())
		if name == "" {
			return nil, apperr.Invalid("pricingConfig.tiers[%d].name is required", i)
		}
		if err := noNUL("pricingConfig.tiers.name", name); err != nil {
			return nil, err
		}
		price, err := checkPrice("pricingConfig.tiers.pricePerTask", t.GetPricePerTask())
		if err != nil {
			return nil, err
		}
		if t.TaskLimit != nil && t.GetTaskLimit() < 1 {
			return nil, apperr.Invalid("pricingConfig.tiers[%d].taskLimit must be at least 1", i)
		}
		desc := strings.TrimSpace(t.GetDescription())
		if err := noNUL("pricingConfig.tiers.description", desc); err != nil {
			return nil, err
		}
		c.Tiers = append(c.Tiers, schema.PricingTier{Name: name, PricePerTask: price, TaskLimit: t.TaskLimit, Description: desc})
	}
	if d := in.GetDynamicConfig(); d != nil {
		r := d.GetEstimateRange()
		if len(r) != 2 {
			return nil, apperr.Invalid("pricingConfig.dynamicConfig.estimateRange must be [min, max]")
		}
		var cents []money.Cents
		for _, v := range r {
			c, err := checkPrice("pricingConfig.dynamicConfig.estimateRange", v)
			if err != nil {
				return nil, err
			}
			cents = append(cents, c)
		}
		if cents[0] > cents[1] {
			return nil, apperr.Invalid("pricingConfig.dynamicConfig.estimateRange: min is above max")
		}
		desc := strings.TrimSpace(d.GetDescription())
		if err := noNUL("pricingConfig.dynamicConfig.description", desc); err != nil {
			return nil, err
		}
		c.DynamicConfig = &schema.DynamicPricing{EstimateRange: cents, RequiresApproval: d.GetRequiresApproval(), Description: desc}
	}
	return c, nil
}

func (p *patch) parseLists(in *input) error {
	for i, c := range in.GetCommands() {
		name := strings.TrimSpace(c.GetName())
		if name == "" {
			return apperr.Invalid("commands[%d].name is required", i)
		}
		cmd := schema.AgentCommand{Name: name, Description: strings.TrimSpace(c.GetDescription()), Usage: strings.TrimSpace(c.GetUsage())}
		for _, f := range []struct{ wire, v string }{
			{"commands.name", cmd.Name}, {"commands.description", cmd.Description}, {"commands.usage", cmd.Usage},
		} {
			if err := noNUL(f.wire, f.v); err != nil {
				return err
			}
		}
		if slices.ContainsFunc(p.commands, func(o schema.AgentCommand) bool { return o.Name == name }) {
			return apperr.Invalid("commands: %q is listed twice", name)
		}
		p.commands = append(p.commands, cmd)
	}
	types, err := words("taskTypes", in.GetTaskTypes(), nil)
	if err != nil {
		return err
	}
	p.taskTypes = types
	widgets, err := words("declaredWidgetTypes", in.GetDeclaredWidgetTypes(), WidgetTypes)
	if err != nil {
		return err
	}
	p.widgetTypes = widgets
	return nil
}

// words trims a list of short strings, refuses blanks, and drops duplicates;
// with allowed set, each must be one of them. A nil answer means none given.
func words(wire string, in []string, allowed []string) ([]string, error) {
	var out []string
	for _, w := range in {
		w = strings.TrimSpace(w)
		if w == "" {
			return nil, apperr.Invalid("%s must not hold blank entries", wire)
		}
		if allowed != nil {
			if err := apperr.OneOf(wire, w, allowed); err != nil {
				return nil, err
			}
		} else if err := noNUL(wire, w); err != nil {
			return nil, err
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out, nil
}

func (p *patch) parseSecrets(in *input) error {
	if in.AccessPassword != nil {
		pw := in.GetAccessPassword()
		if n := utf8.RuneCountInString(pw); pw != "" && (n < minPassword || n > maxPassword) {
			return apperr.Invalid("accessPassword must be %d to %d characters", minPassword, maxPassword)
		}
		if err := noNUL("accessPassword", pw); err != nil {
			return err
		}
		p.password = &pw
	}
	if in.AuthCredential != nil {
		c := in.GetAuthCredential()
		if c == "" {
			return apperr.Invalid("authCredential must not be empty")
		}
		// It travels in a header (bearer, api_key) or keys an HMAC: printable
		// ASCII keeps it out of header injection and encoding trouble.
		for _, r := range c {
			if r < 0x21 || r > 0x7e {
				return apperr.Invalid("authCredential must be printable ASCII without spaces")
			}
		}
		p.credential = &c
	}
	return nil
}

// parseClears applies clearFields: each name must be clearable and not also
// supplied; duplicates are harmless.
func (p *patch) parseClears(in *input) error {
	for _, name := range in.GetClearFields() {
		if !slices.Contains(clearable, name) {
			return apperr.Invalid("clearFields: %q cannot be cleared; clearable fields: %s", name, strings.Join(clearable, ", "))
		}
		if suppliedField(in, name) {
			return apperr.Invalid("clearFields: %s is both set and cleared", name)
		}
		switch name {
		case "category":
			c := ""
			p.category = &c
		case "pricingConfig":
			p.clearPricingConfig = true
		case "commands":
			p.commands = []schema.AgentCommand{}
		case "taskTypes":
			p.taskTypes = []string{}
		case "declaredWidgetTypes":
			p.widgetTypes = []string{}
		case "accessPassword":
			pw := ""
			p.password = &pw
		case "healthCheckUrl":
			u := ""
			p.healthCheckURL = &u
		default:
			p.texts[name] = ""
		}
	}
	return nil
}

// suppliedField reports whether the input supplies the field with JSON name.
func suppliedField(in *input, name string) bool {
	fd := in.ProtoReflect().Descriptor().Fields().ByJSONName(name)
	return fd != nil && in.ProtoReflect().Has(fd)
}

// markSupplied lists the supplied and cleared fields in field order (the
// price under pricePerTask, whichever alias carried it).
func (p *patch) markSupplied(in *input) {
	cleared := in.GetClearFields()
	fields := in.ProtoReflect().Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		name := fd.JSONName()
		switch name {
		case "clearFields", "changelog":
			continue
		case "pricingAmount", "price":
			name = "pricePerTask"
		}
		if (in.ProtoReflect().Has(fd) || slices.Contains(cleared, name)) && !slices.Contains(p.supplied, name) {
			p.supplied = append(p.supplied, name)
		}
	}
}

// oneLine trims an optional one-line field; a required one must not be empty.
func oneLine(wire string, v *string, required bool) (*string, error) {
	if v == nil {
		return nil, nil
	}
	s := strings.TrimSpace(*v)
	if required && s == "" {
		return nil, apperr.Invalid("%s must not be empty", wire)
	}
	if err := noNUL(wire, s); err != nil {
		return nil, err
	}
	return &s, nil
}

// noNUL refuses NUL characters: PostgreSQL cannot store them in text, and
// both databases must answer the same.
func noNUL(wire, s string) error {
	if strings.ContainsRune(s, 0) {
		return apperr.Invalid("%s must not contain NUL characters", wire)
	}
	return nil
}

// checkPrice reads an amount of the wire into cents (docs/decisions.md,
// "Money in minor units").
func checkPrice(wire string, v float64) (money.Cents, error) {
	c, err := money.FromFloat(v)
	if err != nil || c > maxPrice*100 {
		return 0, apperr.Invalid("%s must be a number from 0 to %d with at most two decimals", wire, maxPrice)
	}
	return c, nil
}
