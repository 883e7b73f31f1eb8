package input

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// stringRule judges one string of a request: fd is its field (the list or map
// field for an item), at says where the string is; it is spelled out only for
// a refusal, since every request walks every string.
type stringRule func(fd protoreflect.FieldDescriptor, s string, at where) error

// where names a string as the client wrote it: JSON names, [i] for list
// items and ["key"] for map values.
type where struct {
	prefix, name string
	index        int // of a list item, -1 otherwise
	key          *string
}

func (w where) String() string {
	p := join(w.prefix, w.name)
	switch {
	case w.index >= 0:
		return fmt.Sprintf("%s[%d]", p, w.index)
	case w.key != nil:
		return fmt.Sprintf("%s[%q]", p, *w.key)
	}
	return p
}

// textRule refuses a string that is not text, naming where it was.
func textRule(_ protoreflect.FieldDescriptor, s string, at where) error {
	if !Text(s) {
		return NotText(at.String())
	}
	return nil
}

// vocabularyRule holds a string of a field that names a vocabulary to its
// values. Empty is absent: a default, or the required rule's business. The
// refusal names the field as the domain packages do, by its own name.
func vocabularyRule(fd protoreflect.FieldDescriptor, s string, _ where) error {
	if s == "" {
		return nil
	}
	if set := vocab.Of(fd); set != nil {
		return apperr.OneOf(fd.JSONName(), s, set.Values)
	}
	return nil
}

// walkStrings applies rule to every string of every set field of m: a
// reflective walk rather than a rule on each field, so a string field added
// later cannot miss it.
func walkStrings(m protoreflect.Message, prefix string, rule stringRule) error {
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		err = checkField(fd, v, where{prefix: prefix, name: fd.JSONName(), index: -1}, rule)
		return err == nil
	})
	return err
}

func checkField(fd protoreflect.FieldDescriptor, v protoreflect.Value, at where, rule stringRule) error {
	switch {
	case fd.IsList():
		l := v.List()
		for i := 0; i < l.Len(); i++ {
			item := at
			item.index = i
			if err := checkValue(fd, l.Get(i), item, rule); err != nil {
				return err
			}
		}
	case fd.IsMap():
		var err error
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			if s, ok := k.Interface().(string); ok && !Text(s) {
				err = NotText(at.String() + " key")
				return false
			}
			entry, key := at, k.String()
			entry.key = &key
			err = checkValue(fd.MapValue(), mv, entry, rule)
			return err == nil
		})
		return err
	default:
		return checkValue(fd, v, at, rule)
	}
	return nil
}

func checkValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, at where, rule stringRule) error {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return rule(fd, v.String(), at)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return walkStrings(v.Message(), at.String(), rule)
	}
	return nil
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
