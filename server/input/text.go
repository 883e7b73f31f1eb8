package input

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// checkText walks every set field of m: a reflective walk rather than a rule
// on each field, so a string field added later cannot miss it.
func checkText(m protoreflect.Message, prefix string) error {
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		err = checkField(fd, v, join(prefix, fd.JSONName()))
		return err == nil
	})
	return err
}

func checkField(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string) error {
	switch {
	case fd.IsList():
		l := v.List()
		for i := 0; i < l.Len(); i++ {
			if err := checkValue(fd, l.Get(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
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
			err = checkValue(fd.MapValue(), mv, fmt.Sprintf("%s[%q]", path, k.String()))
			return err == nil
		})
		return err
	default:
		return checkValue(fd, v, path)
	}
	return nil
}

func checkValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string) error {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if !Text(v.String()) {
			return NotText(path)
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return checkText(v.Message(), path)
	}
	return nil
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
