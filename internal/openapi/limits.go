package openapi

import (
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// fieldRules answers the protovalidate rules the contract declares on f, nil
// when none.
func fieldRules(f protoreflect.FieldDescriptor) *validate.FieldRules {
	r, _ := proto.GetExtension(f.Options(), validate.E_Field).(*validate.FieldRules)
	return r
}

// applyLimits publishes f's declared limits on its schema p: maxLength for
// strings, maxItems for lists (and maxLength on their items), maxProperties
// for maps (and maxLength on their values), and the values of its vocabulary
// as an enum (on the items of a list).
func applyLimits(p *object, f protoreflect.FieldDescriptor) {
	applyVocabulary(p, f)
	r := fieldRules(f)
	if r == nil {
		return
	}
	stringLimit(p, r.GetString())
	if rep := r.GetRepeated(); rep != nil {
		if rep.HasMaxItems() {
			p.set("maxItems", rep.GetMaxItems())
		}
		if items := p.child("items"); items != nil {
			stringLimit(items, rep.GetItems().GetString())
		}
	}
	if m := r.GetMap(); m != nil {
		if m.HasMaxPairs() {
			p.set("maxProperties", m.GetMaxPairs())
		}
		if values := p.child("additionalProperties"); values != nil {
			stringLimit(values, m.GetValues().GetString())
		}
	}
}

func stringLimit(p *object, s *validate.StringRules) {
	if s.HasMaxLen() {
		p.set("maxLength", s.GetMaxLen())
	}
}

// pathLimits publishes the limit of a path parameter, named by its field's
// proto path (card_id, or a dotted path into a message).
func pathLimits(p *object, in protoreflect.MessageDescriptor) {
	var f protoreflect.FieldDescriptor
	md := in
	for _, name := range strings.Split(p.str("name"), ".") {
		if md == nil {
			return
		}
		f = md.Fields().ByName(protoreflect.Name(name))
		if f == nil {
			f = md.Fields().ByJSONName(name)
		}
		if f == nil {
			return
		}
		md = f.Message()
	}
	if s := p.child("schema"); s != nil && f != nil {
		applyLimits(s, f)
	}
}

func applyVocabulary(p *object, f protoreflect.FieldDescriptor) {
	set := vocab.Of(f)
	if set == nil {
		return
	}
	target := p
	if f.IsList() {
		target = p.child("items")
	}
	if target == nil {
		return
	}
	enum := make([]any, len(set.Values))
	for i, v := range set.Values {
		enum[i] = v
	}
	target.set("enum", enum)
}
