package page

import (
	"errors"
	"slices"
	"testing"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

type status string

// eq stands in for an ent predicate constructor such as card.StatusEQ.
func eq(v status) string { return "status=" + string(v) }

func TestOneOf(t *testing.T) {
	allowed := []string{"todo", "done"}
	cases := []struct {
		name      string
		values    []string
		want      []string
		wantError string
	}{
		{"none given", []string{"", ""}, []string{"user"}, ""},
		{"both given", []string{"todo", "done"}, []string{"user", "status=todo", "status=done"}, ""},
		{"first bad", []string{"nope", "also"}, nil, `first "nope" is not one of todo, done`},
		{"second bad", []string{"todo", "also"}, nil, `second "also" is not one of todo, done`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &Filters[string]{Where: []string{"user"}}
			OneOf(f, "first", tc.values[0], allowed, eq)
			OneOf(f, "second", tc.values[1], allowed, eq)
			if tc.wantError == "" {
				if f.Err != nil || !slices.Equal(f.Where, tc.want) {
					t.Fatalf("Where %v, Err %v; want %v", f.Where, f.Err, tc.want)
				}
				return
			}
			var ae *apperr.Error
			if !errors.As(f.Err, &ae) || ae.Kind != apperr.KindInvalid || ae.Message != tc.wantError {
				t.Fatalf("Err %v, want invalid %q", f.Err, tc.wantError)
			}
		})
	}
}
