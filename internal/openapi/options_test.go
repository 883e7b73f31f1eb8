package openapi

import (
	"slices"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// The contract does not use every option yet; this file describes a small
// switchboard.v1 file that does, so the rules are pinned before they are needed.

func field(name string, n int32, typ descriptorpb.FieldDescriptorProto_Type, label descriptorpb.FieldDescriptorProto_Label, typeName string) *descriptorpb.FieldDescriptorProto {
	f := &descriptorpb.FieldDescriptorProto{
		Name:   proto.String(name),
		Number: proto.Int32(n),
		Type:   typ.Enum(),
		Label:  label.Enum(),
	}
	if typeName != "" {
		f.TypeName = proto.String(typeName)
	}
	return f
}

const (
	tString   = descriptorpb.FieldDescriptorProto_TYPE_STRING
	tMessage  = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
	lOptional = descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
	lRepeated = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
)

func nullWhenEmptyOpt() *descriptorpb.FieldOptions {
	o := &descriptorpb.FieldOptions{}
	proto.SetExtension(o, switchboardv1.E_RestNullWhenEmpty, true)
	return o
}

// proto3Optional makes f a proto3 `optional` field with its synthetic oneof.
func proto3Optional(m *descriptorpb.DescriptorProto, f *descriptorpb.FieldDescriptorProto) {
	f.Proto3Optional = proto.Bool(true)
	f.OneofIndex = proto.Int32(int32(len(m.OneofDecl)))
	m.OneofDecl = append(m.OneofDecl, &descriptorpb.OneofDescriptorProto{Name: proto.String("_" + f.GetName())})
	m.Field = append(m.Field, f)
}

func syntheticFiles(t *testing.T) *protoregistry.Files {
	t.Helper()
	// Card: labels null when empty, tags [] when empty, an optional Card, a
	// real oneof; Patch: rest_omit_absent with an optional and a list.
	card := &descriptorpb.DescriptorProto{Name: proto.String("Card")}
	labels := field("labels", 1, tString, lRepeated, "")
	labels.Options = nullWhenEmptyOpt()
	card.Field = append(card.Field, labels, field("tags", 2, tString, lRepeated, ""))
	card.OneofDecl = append(card.OneofDecl, &descriptorpb.OneofDescriptorProto{Name: proto.String("target")})
	for i, name := range []string{"user_id", "team_id"} {
		f := field(name, int32(4+i), tString, lOptional, "")
		f.OneofIndex = proto.Int32(int32(len(card.OneofDecl) - 1))
		card.Field = append(card.Field, f)
	}
	// Synthetic oneofs come after the written ones.
	proto3Optional(card, field("parent_card", 3, tMessage, lOptional, ".switchboard.v1.Card"))

	patch := &descriptorpb.DescriptorProto{Name: proto.String("Patch"), Options: &descriptorpb.MessageOptions{}}
	proto.SetExtension(patch.Options, switchboardv1.E_RestOmitAbsent, true)
	plabels := field("labels", 1, tString, lRepeated, "")
	plabels.Options = nullWhenEmptyOpt()
	patch.Field = append(patch.Field, plabels)
	proto3Optional(patch, field("title", 2, tString, lOptional, ""))

	req := &descriptorpb.DescriptorProto{Name: proto.String("GetCardRequest")}
	req.Field = append(req.Field, field("card_id", 1, tString, lOptional, ""))

	method := func(name, in, out, get string, access *switchboardv1.AccessRule) *descriptorpb.MethodDescriptorProto {
		o := &descriptorpb.MethodOptions{}
		proto.SetExtension(o, switchboardv1.E_Access, access)
		proto.SetExtension(o, annotations.E_Http, &annotations.HttpRule{Pattern: &annotations.HttpRule_Get{Get: get}})
		return &descriptorpb.MethodDescriptorProto{
			Name: proto.String(name), InputType: proto.String(in), OutputType: proto.String(out), Options: o,
		}
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name:        proto.String("switchboard/v1/synthetic_test.proto"),
		Package:     proto.String("switchboard.v1"),
		Syntax:      proto.String("proto3"),
		Dependency:  []string{"switchboard/v1/options.proto", "google/api/annotations.proto"},
		MessageType: []*descriptorpb.DescriptorProto{card, patch, req},
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String("CardService"),
			Method: []*descriptorpb.MethodDescriptorProto{
				method("GetCard", ".switchboard.v1.GetCardRequest", ".switchboard.v1.Card", "/api/v2/cards/{card_id}",
					&switchboardv1.AccessRule{Credentials: []switchboardv1.Credential{switchboardv1.Credential_CREDENTIAL_KEY}, Scope: "kanban"}),
				method("GetPatch", ".switchboard.v1.GetCardRequest", ".switchboard.v1.Patch", "/api/v2/patches/{card_id}",
					&switchboardv1.AccessRule{Public: true}),
			},
		}},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatalf("synthetic file: %v", err)
	}
	files := &protoregistry.Files{}
	if err := files.RegisterFile(fd); err != nil {
		t.Fatal(err)
	}
	return files
}

// syntheticGnostic is what gnostic writes for the synthetic file.
const syntheticGnostic = `openapi: 3.0.3
info: {title: t, version: 2.0.0}
paths:
  /api/v2/cards/{cardId}:
    get:
      operationId: CardService_GetCard
      parameters: [{name: cardId, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: OK, content: {application/json: {schema: {$ref: '#/components/schemas/Card'}}}}
  /api/v2/patches/{cardId}:
    get:
      operationId: CardService_GetPatch
      parameters: [{name: cardId, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: OK, content: {application/json: {schema: {$ref: '#/components/schemas/Patch'}}}}
components:
  schemas:
    Card:
      type: object
      properties:
        labels: {type: array, items: {type: string}}
        tags: {type: array, items: {type: string}}
        parentCard: {$ref: '#/components/schemas/Card'}
        userId: {type: string}
        teamId: {type: string}
    Patch:
      type: object
      properties:
        labels: {type: array, items: {type: string}}
        title: {type: string}
`

func TestOptionsOnSyntheticFile(t *testing.T) {
	c, err := loadContract(syntheticFiles(t))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseYAML([]byte(syntheticGnostic))
	if err != nil {
		t.Fatal(err)
	}
	if err := transform(doc, c); err != nil {
		t.Fatal(err)
	}
	schemas := doc.child("components").child("schemas")

	nullables := []struct {
		schema, prop string
		want         string
	}{
		{"Card", "labels", `{"type":"array","items":{"type":"string"},"nullable":true}`},
		{"Card", "tags", `{"type":"array","items":{"type":"string"}}`},
		{"Card", "parentCard", `{"anyOf":[{"$ref":"#/components/schemas/Card"},{"type":"object","nullable":true,"enum":[null]}]}`},
		{"Card", "userId", `{"type":"string"}`},
		// rest_omit_absent leaves out unset optionals and empty lists, even a
		// list marked rest_null_when_empty: neither is null.
		{"Patch", "labels", `{"type":"array","items":{"type":"string"}}`},
		{"Patch", "title", `{"type":"string"}`},
	}
	for _, tt := range nullables {
		t.Run(tt.schema+"."+tt.prop, func(t *testing.T) {
			if got := compactJSON(t, schemas.child(tt.schema).child("properties").child(tt.prop)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}

	requireds := map[string][]string{
		"Card":  {"labels", "tags", "parentCard"}, // oneof members are left out when unset
		"Patch": nil,                              // what was not applied is left out
	}
	for name, want := range requireds {
		v, _ := schemas.child(name).get("required")
		if got := toStrings(v); !slices.Equal(got, want) {
			t.Errorf("%s.required = %v, want %v", name, got, want)
		}
	}

	sec, _ := doc.child("paths").child("/api/v2/cards/{cardId}").child("get").get("security")
	if got := compactJSON(t, sec); got != `[{"bearerAuth":[]}]` {
		t.Errorf("GetCard security = %s", got)
	}
}
