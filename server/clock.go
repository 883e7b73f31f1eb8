package server

import (
	"fmt"
	"reflect"
	"time"
)

// requireClocks fails construction when a service was wired without its
// clock: every service that stamps or compares business time has a required
// Now field, given Config.Clock's time by New (docs/decisions.md, "Lint and
// one clock"). Checking here turns a forgotten field into an error at start-up
// instead of a nil call on some later request.
func requireClocks(svc any) error {
	v := reflect.ValueOf(svc)
	nowType := reflect.TypeFor[func() time.Time]()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Pointer || f.IsNil() || f.Elem().Kind() != reflect.Struct {
			continue
		}
		now := f.Elem().FieldByName("Now")
		if now.IsValid() && now.Type() == nowType && now.IsNil() {
			return fmt.Errorf("server: %s has no clock (its Now field is required)", f.Elem().Type())
		}
	}
	return nil
}
