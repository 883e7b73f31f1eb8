package input

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// stringRule judges one string of a request: fd is its field (the list or map
// field for an item), path names it as the client wrote it.
type stringRule func(fd protoreflect.FieldDescriptor, s, path string) error

// textRule refuses a string that is not text, naming where it was.
func textRule(_ protoreflect.FieldDescriptor, s, path string) error {
	if !Text(s) {
		return NotText(path)
	}
	return nil
}

// vocabularyRule holds a string of a field that names a vocabulary to its
// values. Empty is absent: a default, or the required rule's business. The
// refusal names the field as the domain packages do, by its own name.
func vocabularyRule(fd protoreflect.FieldDescriptor, s, _ string) error {
	if set := vocab.Of(fd); set != nil && s != "" {
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
		err = checkField(fd, v, join(prefix, fd.JSONName()), rule)
		return err == nil
	})
	return err
}

func checkField(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string, rule stringRule) error {
	switch {
	case fd.IsList():
		l := v.List()
		for i := 0; i < l.Len(); i++ {
			if err := checkValue(fd, l.Get(i), fmt.Sprintf("%s[%d]", path, i), rule); err != nil {
				return err
			}
		}
	case fd.IsMap():
		var err error
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			if s, ok := k.Interface().(string); ok && !Text(s) {
				err = NotText(path + " key")
				return false
			}
			err = checkValue(fd.MapValue(), mv, fmt.Sprintf("%s[%q]", path, k.String()), rule)
			return err == nil
		})
		return err
	default:
		return checkValue(fd, v, path, rule)
	}
	return nil
}

func checkValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string, rule stringRule) error {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return rule(fd, v.String(), path)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return walkStrings(v.Message(), path, rule)
	}
	return nil
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
