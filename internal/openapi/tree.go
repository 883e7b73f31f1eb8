package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"
)

// object is a JSON object that keeps its keys in insertion order, so the
// document reads in the order gnostic and this package wrote it and the output
// is the same bytes on every run.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

// obj builds an object from alternating keys and values.
func obj(kv ...any) *object {
	o := newObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// child answers the object stored under k, or nil when there is none.
func (o *object) child(k string) *object {
	if o == nil {
		return nil
	}
	c, _ := o.vals[k].(*object)
	return c
}

// ensure answers the object stored under k, creating it when absent.
func (o *object) ensure(k string) *object {
	if c := o.child(k); c != nil {
		return c
	}
	c := newObject()
	o.set(k, c)
	return c
}

func (o *object) str(k string) string {
	s, _ := o.vals[k].(string)
	return s
}

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(s string) bool { return s == k })
}

// rename moves the value under from to the key to, keeping its position.
func (o *object) rename(from, to string) {
	v, ok := o.vals[from]
	if !ok || from == to {
		return
	}
	o.del(to)
	delete(o.vals, from)
	o.keys[slices.Index(o.keys, from)] = to
	o.vals[to] = v
}

// order puts the named keys first, in that order, and keeps the rest after
// them in their current order.
func (o *object) order(first ...string) {
	rank := func(k string) int {
		if i := slices.Index(first, k); i >= 0 {
			return i
		}
		return len(first)
	}
	slices.SortStableFunc(o.keys, func(a, b string) int { return rank(a) - rank(b) })
}

func (o *object) sortKeys(cmp func(a, b string) int) { slices.SortStableFunc(o.keys, cmp) }

// clone copies a tree of objects and arrays deeply.
func clone(v any) any {
	switch t := v.(type) {
	case *object:
		c := newObject()
		for _, k := range t.keys {
			c.set(k, clone(t.vals[k]))
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = clone(e)
		}
		return c
	default:
		return v
	}
}

// parseYAML reads a YAML document into objects, arrays and scalars.
func parseYAML(data []byte) (*object, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse yaml: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Errorf("parse yaml: want one document")
	}
	v, err := fromNode(doc.Content[0])
	if err != nil {
		return nil, err
	}
	root, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("parse yaml: document is not a mapping")
	}
	return root, nil
}

func fromNode(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.MappingNode:
		o := newObject()
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := fromNode(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			o.set(n.Content[i].Value, v)
		}
		return o, nil
	case yaml.SequenceNode:
		a := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := fromNode(c)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		return a, nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		return v, nil
	case yaml.AliasNode:
		return fromNode(n.Alias)
	default:
		return nil, fmt.Errorf("line %d: unexpected yaml node kind %v", n.Line, n.Kind)
	}
}

// marshalJSON writes v as JSON indented by two spaces, without HTML escaping,
// ending in a newline.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v, ""); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any, indent string) error {
	const step = "  "
	switch t := v.(type) {
	case *object:
		if len(t.keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i, k := range t.keys {
			b.WriteString(indent + step)
			writeString(b, k)
			b.WriteString(": ")
			if err := writeJSON(b, t.vals[k], indent+step); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			if i < len(t.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString("[\n")
		for i, e := range t {
			b.WriteString(indent + step)
			if err := writeJSON(b, e, indent+step); err != nil {
				return err
			}
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case string:
		writeString(b, t)
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case int:
		b.WriteString(strconv.Itoa(t))
	case int64:
		b.WriteString(strconv.FormatInt(t, 10))
	case uint64:
		b.WriteString(strconv.FormatUint(t, 10))
	case float64:
		n, err := json.Marshal(t)
		if err != nil {
			return err
		}
		b.Write(n)
	default:
		return fmt.Errorf("cannot write %T as JSON", v)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
}
