// Package vocab reads the contract's enumerated value sets (vocabulary.proto)
// from the compiled descriptors, so that validation, the ent schema, the
// OpenAPI document and the dashboard share one declaration of each.
package vocab

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// Set is one vocabulary with its includes resolved.
type Set struct {
	Name   string
	Values []string          // in the declared order, own terms first
	Labels map[string]string // value → the words the dashboard shows
}

// Has reports whether v is one of the set's values.
func (s *Set) Has(v string) bool { return slices.Contains(s.Values, v) }

var sets = mustLoad(switchboardv1.File_switchboard_v1_vocabulary_proto)

// All answers every vocabulary, in declaration order.
func All() []*Set {
	out := make([]*Set, 0, len(sets.order))
	for _, n := range sets.order {
		out = append(out, sets.byName[n])
	}
	return out
}

// Get answers the vocabulary called name; it panics for a name the contract
// does not declare, a programming error caught by any test that loads the
// caller's package.
func Get(name string) *Set {
	s, ok := sets.byName[name]
	if !ok {
		panic(fmt.Sprintf("vocab: the contract declares no vocabulary %q", name))
	}
	return s
}

// Lookup answers the vocabulary called name, if the contract declares it.
func Lookup(name string) (*Set, bool) {
	s, ok := sets.byName[name]
	return s, ok
}

// Values answers a copy of the values of the vocabulary called name.
func Values(name string) []string { return slices.Clone(Get(name).Values) }

// Of answers the vocabulary a field names with the (vocabulary) option, nil
// when it names none.
func Of(fd protoreflect.FieldDescriptor) *Set {
	// Every string of every request asks: remember the answer per field.
	if s, ok := byField.Load(fd); ok {
		return s.(*Set)
	}
	var s *Set
	if name, _ := proto.GetExtension(fd.Options(), switchboardv1.E_Vocabulary).(string); name != "" {
		s = Get(name)
	}
	byField.Store(fd, s)
	return s
}

var byField sync.Map // protoreflect.FieldDescriptor → *Set, nil for none

type registry struct {
	order  []string
	byName map[string]*Set
}

func mustLoad(fd protoreflect.FileDescriptor) *registry {
	r, err := load(fd)
	if err != nil {
		panic(err)
	}
	return r
}

// load reads and checks the declarations: unique names and values, a label
// for every term, includes that name a declared vocabulary without cycles.
func load(fd protoreflect.FileDescriptor) (*registry, error) {
	decls, _ := proto.GetExtension(fd.Options(), switchboardv1.E_Vocabularies).([]*switchboardv1.Vocabulary)
	byDecl := map[string]*switchboardv1.Vocabulary{}
	r := &registry{byName: map[string]*Set{}}
	for _, d := range decls {
		if d.GetName() == "" {
			return nil, fmt.Errorf("vocab: %s declares a vocabulary without a name", fd.Path())
		}
		if _, dup := byDecl[d.GetName()]; dup {
			return nil, fmt.Errorf("vocab: vocabulary %q is declared twice", d.GetName())
		}
		byDecl[d.GetName()] = d
		r.order = append(r.order, d.GetName())
	}
	for _, name := range r.order {
		s := &Set{Name: name, Labels: map[string]string{}}
		if err := resolve(s, byDecl, name, nil); err != nil {
			return nil, err
		}
		r.byName[name] = s
	}
	return r, nil
}

func resolve(s *Set, decls map[string]*switchboardv1.Vocabulary, name string, path []string) error {
	if slices.Contains(path, name) {
		return fmt.Errorf("vocab: vocabulary %q includes itself (%s)", name, strings.Join(append(path, name), " → "))
	}
	d, ok := decls[name]
	if !ok {
		return fmt.Errorf("vocab: vocabulary %q includes %q, which is not declared", path[len(path)-1], name)
	}
	for _, t := range d.GetTerms() {
		switch {
		case t.GetValue() == "":
			return fmt.Errorf("vocab: vocabulary %q has an empty value", name)
		case t.GetLabel() == "":
			return fmt.Errorf("vocab: vocabulary %q: value %q has no label", name, t.GetValue())
		case s.Has(t.GetValue()):
			return fmt.Errorf("vocab: vocabulary %q holds %q twice", s.Name, t.GetValue())
		}
		s.Values = append(s.Values, t.GetValue())
		s.Labels[t.GetValue()] = t.GetLabel()
	}
	for _, inc := range d.GetIncludes() {
		if err := resolve(s, decls, inc, append(path, name)); err != nil {
			return err
		}
	}
	return nil
}
