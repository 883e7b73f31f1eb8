package throughtest

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// fullInput sets every scalar field of CardInput, found by reflection, so that
// a field added to the contract without a mapping fails here.
func fullInput(t *testing.T) *switchboardv1.CardInput {
	t.Helper()
	in := &switchboardv1.CardInput{Labels: []string{"l1", "l2"}}
	m := in.ProtoReflect()
	fds := m.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.IsList() {
			continue
		}
		var v protoreflect.Value
		switch fd.Kind() {
		case protoreflect.StringKind:
			v = protoreflect.ValueOfString(map[protoreflect.Name]string{
				"title": "Every field", "status": "planning", "priority": "urgent", "assignee": "agent",
			}[fd.Name()])
			if v.String() == "" {
				v = protoreflect.ValueOfString("v-" + string(fd.Name()))
			}
		case protoreflect.Int32Kind:
			v = protoreflect.ValueOfInt32(7)
		case protoreflect.DoubleKind:
			v = protoreflect.ValueOfFloat64(1234.5)
		case protoreflect.BoolKind:
			v = protoreflect.ValueOfBool(true)
		case protoreflect.MessageKind:
			v = protoreflect.ValueOfMessage(timestamppb.New(time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)).ProtoReflect())
		default:
			t.Fatalf("CardInput.%s: kind %v not covered by this test", fd.Name(), fd.Kind())
		}
		m.Set(fd, v)
	}
	return in
}

// Every writable field is stored and rendered back under the same name, and
// every optional text field can be cleared with "" (RULINGS: CreateCard and
// UpdateCard accept every writable card field).
func TestApplyInputCoversEveryField(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ctx := context.Background()
	c := b.client("connect+proto")
	in := fullInput(t)
	// A reference must name one of the caller's cards (RULINGS "Input at the boundary").
	in.ParentCardId = proto.String(b.create(t, map[string]any{"title": "parent"})["id"].(string))
	res, err := c.CreateCard(ctx, &switchboardv1.CreateCardRequest{Card: in})
	if err != nil {
		t.Fatal(err)
	}
	out := res.GetCard().ProtoReflect()
	inFields := in.ProtoReflect().Descriptor().Fields()
	for i := range inFields.Len() {
		fd := inFields.Get(i)
		if fd.Name() == "checklist" || fd.Name() == "contacts" || fd.Name() == "clear_fields" {
			continue
		}
		ofd := out.Descriptor().Fields().ByName(fd.Name())
		if ofd == nil {
			t.Errorf("CardInput.%s has no field on the card", fd.Name())
			continue
		}
		if !out.Has(ofd) || !out.Get(ofd).Equal(in.ProtoReflect().Get(fd)) {
			t.Errorf("%s: stored %v, sent %v", fd.Name(), out.Get(ofd), in.ProtoReflect().Get(fd))
		}
	}

	// Clear every optional text field.
	clear := &switchboardv1.CardInput{}
	cm := clear.ProtoReflect()
	for i := range inFields.Len() {
		fd := inFields.Get(i)
		if fd.Kind() == protoreflect.StringKind && !fd.IsList() && fd.HasPresence() &&
			fd.Name() != "title" && fd.Name() != "status" && fd.Name() != "priority" && fd.Name() != "assignee" {
			cm.Set(fd, protoreflect.ValueOfString(""))
		}
	}
	upd, err := c.UpdateCard(ctx, &switchboardv1.UpdateCardRequest{Id: res.GetCard().GetId(), Card: clear})
	if err != nil {
		t.Fatal(err)
	}
	um := upd.GetCard().ProtoReflect()
	cm.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if ofd := um.Descriptor().Fields().ByName(fd.Name()); um.Has(ofd) {
			t.Errorf("%s not cleared: %v", fd.Name(), um.Get(ofd))
		}
		return true
	})
	if upd.GetCard().GetTitle() != "Every field" || upd.GetCard().GetPriorityScore() != 7 {
		t.Errorf("clearing touched other fields: %v", upd.GetCard())
	}
}
