package openapi

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoregistry"
)

// RULINGS "Input at the boundary": every limit the contract declares is in
// the OpenAPI, as maxLength, maxItems or maxProperties.
func TestOpenAPIPublishesLimits(t *testing.T) {
	doc := document(t)
	c, err := loadContract(protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, m := range c.messages {
		props, ok := at(doc, "components", "schemas", schemaName(m), "properties").(map[string]any)
		if !ok {
			continue
		}
		fields := m.Fields()
		for i := 0; i < fields.Len(); i++ {
			f := fields.Get(i)
			r := fieldRules(f)
			if r == nil {
				continue
			}
			p := props[f.JSONName()]
			checked++
			if s := r.GetString(); s.HasMaxLen() && at(p, "maxLength") != float64(s.GetMaxLen()) {
				t.Errorf("%s: maxLength %v, contract %d", f.FullName(), at(p, "maxLength"), s.GetMaxLen())
			}
			if rep := r.GetRepeated(); rep.HasMaxItems() && at(p, "maxItems") != float64(rep.GetMaxItems()) {
				t.Errorf("%s: maxItems %v, contract %d", f.FullName(), at(p, "maxItems"), rep.GetMaxItems())
			}
			if mp := r.GetMap(); mp.HasMaxPairs() && at(p, "maxProperties") != float64(mp.GetMaxPairs()) {
				t.Errorf("%s: maxProperties %v, contract %d", f.FullName(), at(p, "maxProperties"), mp.GetMaxPairs())
			}
		}
	}
	if checked < 150 {
		t.Errorf("only %d fields with rules have a schema; the check lost its fields", checked)
	}
	// Named cases: a list's items, a path parameter, a query parameter.
	if v := at(doc, "components", "schemas", "CardInput", "properties", "labels", "items", "maxLength"); v != float64(500) {
		t.Errorf("CardInput.labels items maxLength = %v", v)
	}
	_, op := operation(t, doc, "KanbanService_ListCardActivity")
	for _, p := range op["parameters"].([]any) {
		name, _ := at(p, "name").(string)
		want := map[string]float64{"id": 64, "cursor": 1000}[name]
		if want != 0 && at(p, "schema", "maxLength") != want {
			t.Errorf("ListCardActivity parameter %s: maxLength %v, want %v", name, at(p, "schema", "maxLength"), want)
		}
	}
}
