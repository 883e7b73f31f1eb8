package contacts

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contact"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

func TestParseInput(t *testing.T) {
	t.Parallel()
	type in = switchboardv1.ContactInput
	cases := []struct {
		name     string
		in       *in
		create   bool
		err      string // substring of the refusal; "" for success
		set      map[string]any
		clear    []string
		supplied []string
	}{
		{name: "create needs a name", in: &in{}, create: true, err: "name is required"},
		{name: "create nil", in: nil, create: true, err: "name is required"},
		{name: "blank name", in: &in{Name: proto.String(" \t")}, create: true, err: "name must not be empty"},
		{name: "blank name on update", in: &in{Name: proto.String("")}, err: "name must not be empty"},
		{name: "update needs a field", in: &in{}, err: "no field to update"},
		{name: "empty tags are no field", in: &in{Tags: []string{}}, err: "no field to update"},
		{name: "blank tags only", in: &in{Tags: []string{" ", ""}}, err: "tags must not be blank"},
		{name: "bad email", in: &in{Email: proto.String("ann")}, err: "not a valid email"},
		{name: "named email", in: &in{Email: proto.String("Ann <ann@example.com>")}, err: "not a valid email"},
		{name: "bracketed email", in: &in{Email: proto.String("<ann@example.com>")}, err: "not a valid email"},
		{name: "NUL", in: &in{Phone: proto.String("1\x002")}, err: "phone must not contain NUL"},
		{name: "bad time", in: &in{LastInteractionAt: &timestamppb.Timestamp{Seconds: -1 << 62}}, err: "lastInteractionAt"},
		{
			name: "trimmed and normalised", create: true,
			in: &in{
				Name: proto.String(" Ann "), Email: proto.String(" ann@example.com "), Notes: proto.String("  keep  "),
				Tags: []string{" b", "a", "b ", "", "a"},
			},
			set: map[string]any{
				contact.FieldName: "Ann", contact.FieldEmail: "ann@example.com", contact.FieldNotes: "  keep  ",
				contact.FieldTags: []string{"b", "a"},
			},
			supplied: []string{"name", "email", "notes", "tags"},
		},
		{name: "clear on create", in: &in{Name: proto.String("A"), ClearFields: []string{"tags"}}, create: true, err: "clearFields is for updates only"},
		{name: "clear the name", in: &in{ClearFields: []string{"name"}}, err: "name cannot be cleared"},
		{name: "clear unknown", in: &in{ClearFields: []string{"Email"}}, err: `unknown field "Email"`},
		{name: "set and cleared", in: &in{Notes: proto.String("n"), ClearFields: []string{"notes"}}, err: "notes is both set and cleared"},
		{name: "empty clearFields are no field", in: &in{ClearFields: []string{}}, err: "no field to update"},
		{
			name:     "clear only, in field order, once each",
			in:       &in{ClearFields: []string{"tags", "lastInteractionAt", "email", "tags"}},
			clear:    []string{contact.FieldEmail, contact.FieldLastInteractionAt},
			supplied: []string{"email", "lastInteractionAt", "tags"},
			set:      map[string]any{contact.FieldTags: []string{}},
		},
		{
			name:     "set, then cleared",
			in:       &in{Role: proto.String("r"), ClearFields: []string{"phone"}},
			clear:    []string{contact.FieldPhone},
			supplied: []string{"role", "phone"},
			set:      map[string]any{contact.FieldRole: "r"},
		},
		{
			name:     "empty clears",
			in:       &in{Company: proto.String(" "), EnrichedData: proto.String("")},
			clear:    []string{contact.FieldCompany, contact.FieldEnrichedData},
			supplied: []string{"company", "enrichedData"},
			set:      map[string]any{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := parseInput(tc.in, tc.create)
			if tc.err != "" {
				var ae *apperr.Error
				if err == nil || !errors.As(err, &ae) || ae.Kind != apperr.KindInvalid || !strings.Contains(ae.Message, tc.err) {
					t.Fatalf("err = %v, want invalid %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(e.set) != fmt.Sprint(tc.set) || !slices.Equal(e.clear, tc.clear) || !slices.Equal(e.supplied, tc.supplied) {
				t.Fatalf("edit = %+v", e)
			}
		})
	}
}

// toDetail carries fields across by number: Contact and ContactDetail must
// agree on every field but the cards' element type.
func TestContactAndDetailAgree(t *testing.T) {
	t.Parallel()
	a := (&switchboardv1.Contact{}).ProtoReflect().Descriptor().Fields()
	b := (&switchboardv1.ContactDetail{}).ProtoReflect().Descriptor().Fields()
	if a.Len() != b.Len() {
		t.Fatalf("Contact has %d fields, ContactDetail %d", a.Len(), b.Len())
	}
	for i := range a.Len() {
		fa, fb := a.Get(i), b.ByNumber(a.Get(i).Number())
		if fb == nil || fa.Name() != fb.Name() || fa.Kind() != fb.Kind() || fa.Cardinality() != fb.Cardinality() ||
			fa.HasPresence() != fb.HasPresence() {
			t.Fatalf("field %s differs between Contact and ContactDetail", fa.Name())
		}
		if fa.Kind() == protoreflect.MessageKind && fa.Name() != "cards" && fa.Message().FullName() != fb.Message().FullName() {
			t.Fatalf("field %s has different message types", fa.Name())
		}
	}
}

func TestToDetailCarriesEveryField(t *testing.T) {
	t.Parallel()
	when := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	str := func(s string) *string { return &s }
	full := &ent.Contact{
		ID: "c1", UserID: "u1", Name: "N", Email: str("e@x.y"), Phone: str("p"), Company: str("co"), Role: str("r"),
		PreferredChannel: str("pc"), Notes: str("n"), Tags: []string{"t"}, Source: str("s"), EnrichedData: "{}",
		PlatformUserID: str("pu"), PlatformUserStatus: str("ps"), MatchedAt: &when, LastInteractionAt: &when,
		LastInteractionType: str("lt"), CreatedAt: when, UpdatedAt: when,
	}
	for _, c := range []*ent.Contact{full, {ID: "c2", UserID: "u1", Name: "Sparse", CreatedAt: when, UpdatedAt: when}} {
		d, err := toDetail(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.Tags == nil || d.Cards == nil {
			t.Fatalf("%s: tags %v cards %v must be arrays", c.ID, d.Tags, d.Cards)
		}
		l := toProto(c)
		l.Cards, d.Cards = nil, nil
		lb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(l)
		db, _ := proto.MarshalOptions{Deterministic: true}.Marshal(d)
		if string(lb) != string(db) {
			t.Fatalf("%s: detail %v differs from list %v", c.ID, d, l)
		}
	}
	if p := toProto(full); p.GetEnrichedData() != "{}" || !p.GetMatchedAt().AsTime().Equal(when) {
		t.Fatalf("toProto = %v", p)
	}
}
