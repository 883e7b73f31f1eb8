package capabilities

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent/schema"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// The enumerations of a capability pack (vocabulary.proto).
var (
	IntegrationTypes = vocab.Values("integration")
	PricingModels    = vocab.Values("pack_pricing_model")
	// FieldTypes are the editable-field types a form can render.
	FieldTypes = vocab.Values("pack_field_type")
)

// Limits of what the contract cannot say: the editable fields live in a JSON
// string, and a password's bounds are a rule of its own. The pack's own
// fields are bounded by the contract (capabilities.proto) alone.
const (
	maxFields   = 50
	maxLabel    = 100
	maxValue    = 2000
	minPassword = 8
	maxPassword = 128
	maxPrice    = 100000
)

var fieldName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// newPack is a validated create body.
type newPack struct {
	name, prompt, pricing  string
	description, icon, cat *string
	integration, password  *string
	price                  money.Cents
	fields                 []schema.EditableField
}

// parseCreate validates a create body; it reads no database.
func parseCreate(req *switchboardv1.InstallOrCreateCapabilityRequest) (*newPack, error) {
	if req.GetCapabilityId() != "" {
		return nil, apperr.Invalid("capabilityId is for installs; a create takes no capabilityId")
	}
	p := &newPack{}
	var err error
	if p.name, err = text("name", req.GetName(), true); err != nil {
		return nil, err
	}
	if p.description, err = optText("description", req.Description); err != nil {
		return nil, err
	}
	if p.icon, err = optText("icon", req.Icon); err != nil {
		return nil, err
	}
	if p.cat, err = optText("category", req.Category); err != nil {
		return nil, err
	}
	if it := req.GetIntegrationType(); it != "" {
		if err := apperr.OneOf("integrationType", it, IntegrationTypes); err != nil {
			return nil, err
		}
		p.integration = &it
	}
	if err := p.parsePricing(req); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.GetPrompt()) == "" {
		return nil, apperr.Invalid("prompt is required")
	}
	if err := checkText("prompt", req.GetPrompt(), 0); err != nil {
		return nil, err
	}
	p.prompt = req.GetPrompt()
	if p.fields, err = ParseFields(req.GetEditableFields()); err != nil {
		return nil, err
	}
	for _, v := range Variables(p.prompt) {
		if !slices.ContainsFunc(p.fields, func(f schema.EditableField) bool { return f.Name == v }) {
			return nil, apperr.Invalid("prompt uses {{%s}} but editableFields has no field %q", v, v)
		}
	}
	return p, nil
}

// parsePricing reads pricingModel, price and accessPassword: a password lets
// users skip a one-time payment, so only one_time packs take one.
func (p *newPack) parsePricing(req *switchboardv1.InstallOrCreateCapabilityRequest) error {
	p.pricing = req.GetPricingModel()
	if p.pricing == "" {
		p.pricing = "free"
	}
	if err := apperr.OneOf("pricingModel", p.pricing, PricingModels); err != nil {
		return err
	}
	price, err := money.FromFloat(req.GetPrice())
	if err != nil || price > maxPrice*100 {
		return apperr.Invalid("price must be a number from 0 to %d with at most two decimals", maxPrice)
	}
	switch {
	case p.pricing == "one_time" && price <= 0:
		return apperr.Invalid("a one_time pack needs a price above 0")
	case p.pricing == "free" && price != 0:
		return apperr.Invalid("a free pack has no price")
	}
	p.price = price
	if req.AccessPassword != nil {
		if p.pricing != "one_time" {
			return apperr.Invalid("accessPassword is only for one_time packs (it lets users skip the payment)")
		}
		pw := req.GetAccessPassword()
		if n := utf8.RuneCountInString(pw); n < minPassword || n > maxPassword {
			return apperr.Invalid("accessPassword must be %d to %d characters", minPassword, maxPassword)
		}
		if err := checkText("accessPassword", pw, maxPassword); err != nil {
			return err
		}
		p.password = &pw
	}
	return nil
}

// wireField is an editable field as clients send it: default may be a JSON
// string, number or boolean.
type wireField struct {
	Name    string          `json:"name"`
	Label   string          `json:"label"`
	Type    string          `json:"type"`
	Default json.RawMessage `json:"default"`
}

// ParseFields reads editableFields, a JSON array encoded as a string
// (capabilities.proto): names are unique identifiers, the type defaults to text and a
// label to the name, a default must suit the type. Empty text means none.
func ParseFields(text string) ([]schema.EditableField, error) {
	out := []schema.EditableField{}
	if strings.TrimSpace(text) == "" {
		return out, nil
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	var in []*wireField
	if err := dec.Decode(&in); err != nil {
		return nil, apperr.Invalid("editableFields must be a JSON array of {name, label, type, default}: %v", err)
	}
	if dec.More() {
		return nil, apperr.Invalid("editableFields must be one JSON array")
	}
	if len(in) > maxFields {
		return nil, apperr.Invalid("editableFields: at most %d fields", maxFields)
	}
	for i, w := range in {
		f, err := parseField(i, w)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o schema.EditableField) bool { return o.Name == f.Name }) {
			return nil, apperr.Invalid("editableFields[%d]: name %q is listed twice", i, f.Name)
		}
		out = append(out, f)
	}
	return out, nil
}

func parseField(i int, w *wireField) (schema.EditableField, error) {
	if w == nil {
		return schema.EditableField{}, apperr.Invalid("editableFields[%d] must be an object", i)
	}
	if !fieldName.MatchString(w.Name) {
		return schema.EditableField{}, apperr.Invalid("editableFields[%d].name must be a letter or _ then letters, digits or _ (at most 64)", i)
	}
	f := schema.EditableField{Name: w.Name, Label: strings.TrimSpace(w.Label), Type: w.Type}
	if f.Label == "" {
		f.Label = w.Name
	}
	if err := checkText("editableFields["+strconv.Itoa(i)+"].label", f.Label, maxLabel); err != nil {
		return f, err
	}
	if f.Type == "" {
		f.Type = "text"
	}
	if err := apperr.OneOf("editableFields["+strconv.Itoa(i)+"].type", f.Type, FieldTypes); err != nil {
		return f, err
	}
	def, err := defaultText(w.Default)
	if err != nil {
		return f, apperr.Invalid("editableFields[%d].default: %v", i, err)
	}
	if err := CheckValue(f, def); err != nil {
		return f, apperr.Invalid("editableFields[%d].default: %v", i, err)
	}
	f.Default = def
	return f, nil
}

// defaultText turns a JSON string, number or boolean into its text.
func defaultText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return strconv.FormatBool(b), nil
	}
	return "", errString("must be a string, number or boolean")
}

type errString string

func (e errString) Error() string { return string(e) }

// CheckValue refuses a value that does not suit its field; empty means "use
// the default" and is always accepted.
func CheckValue(f schema.EditableField, v string) error {
	if v == "" {
		return nil
	}
	if utf8.RuneCountInString(v) > maxValue {
		return errString("at most " + strconv.Itoa(maxValue) + " characters")
	}
	if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
		return errString("must be valid UTF-8 without NUL characters")
	}
	switch f.Type {
	case "number":
		if n, err := strconv.ParseFloat(v, 64); err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return errString("must be a number")
		}
	case "boolean":
		if v != "true" && v != "false" {
			return errString("must be true or false")
		}
	}
	return nil
}

// text trims a one-line value and checks it; its length is the contract's.
func text(wire, v string, required bool) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" && required {
		return "", apperr.Invalid("%s is required", wire)
	}
	return v, checkText(wire, v, 0)
}

// optText is text for an optional field: absent or blank is none.
func optText(wire string, v *string) (*string, error) {
	if v == nil {
		return nil, nil
	}
	t, err := text(wire, *v, false)
	if err != nil || t == "" {
		return nil, err
	}
	return &t, nil
}

// checkText refuses invalid text; max 0 leaves the length to the contract.
func checkText(wire, v string, max int) error {
	if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
		return apperr.Invalid("%s must be valid UTF-8 without NUL characters", wire)
	}
	if max > 0 && utf8.RuneCountInString(v) > max {
		return apperr.Invalid("%s is longer than %d characters", wire, max)
	}
	return nil
}
