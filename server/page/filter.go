package page

import "github.com/switchboard-hq/switchboard/server/apperr"

// Filters gathers the predicates of a list's query (P: an ent predicate
// type). Err is the first refused filter value; later filters are not checked,
// so a request with several bad values is told about the first.
type Filters[P any] struct {
	Where []P
	Err   error
}

// OneOf narrows f to field = v when v is given (empty means no filter); a v
// outside allowed is refused as apperr.OneOf words it. eq is the ent
// predicate for an equal enum value, e.g. card.StatusEQ.
func OneOf[P any, E ~string](f *Filters[P], field, v string, allowed []string, eq func(E) P) {
	if f.Err != nil || v == "" {
		return
	}
	if f.Err = apperr.OneOf(field, v, allowed); f.Err == nil {
		f.Where = append(f.Where, eq(E(v)))
	}
}
