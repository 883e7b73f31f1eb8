package contract_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// The list and detail projections are twin messages that differ only in one
// nested projection; services convert one into the other through the wire
// format, so every other field must match number for number.
func TestProjectionTwinsMatch(t *testing.T) {
	for _, tc := range []struct {
		list, detail proto.Message
		projection   protoreflect.Name
	}{
		{&switchboardv1.KanbanCard{}, &switchboardv1.KanbanCardDetail{}, "contacts"},
		{&switchboardv1.CardContact{}, &switchboardv1.CardContactDetail{}, "contact"},
		{&switchboardv1.Contact{}, &switchboardv1.ContactDetail{}, "cards"},
		{&switchboardv1.ContactCardLink{}, &switchboardv1.ContactCardLinkDetail{}, "card"},
	} {
		a, b := tc.list.ProtoReflect().Descriptor(), tc.detail.ProtoReflect().Descriptor()
		t.Run(string(a.Name()), func(t *testing.T) {
			if a.Fields().Len() != b.Fields().Len() {
				t.Fatalf("%s has %d fields, %s has %d", a.Name(), a.Fields().Len(), b.Name(), b.Fields().Len())
			}
			for i := range a.Fields().Len() {
				fa := a.Fields().Get(i)
				fb := b.Fields().ByNumber(fa.Number())
				if fb == nil || fa.Name() != fb.Name() || fa.Kind() != fb.Kind() ||
					fa.Cardinality() != fb.Cardinality() || fa.HasOptionalKeyword() != fb.HasOptionalKeyword() {
					t.Fatalf("field %d (%s) differs between %s and %s", fa.Number(), fa.Name(), a.Name(), b.Name())
				}
				same := fa.Message() == nil || fa.Message().FullName() == fb.Message().FullName()
				if fa.Name() == tc.projection && same {
					t.Errorf("%s should differ in its projection type", fa.Name())
				}
				if fa.Name() != tc.projection && !same {
					t.Errorf("field %s has types %s and %s", fa.Name(), fa.Message().FullName(), fb.Message().FullName())
				}
			}
		})
	}
}
