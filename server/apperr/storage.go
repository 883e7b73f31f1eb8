package apperr

import (
	"errors"
	"strings"

	"entgo.io/ent/dialect/sql/sqlgraph"

	"github.com/switchboard-hq/switchboard/ent"
)

// Wrap is the one mapping of a storage error to a client-facing one: nil stays
// nil, typed errors pass through, and ent's not-found, unique and constraint
// errors become NotFound, Conflict and Invalid with a human message (the SQL
// text stays in Cause, logged, never shown). Anything else is internal.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return From(err)
}

// fromStorage maps ent's and the drivers' constraint, validation and
// not-found errors; nil when err is none of them.
func fromStorage(err error) *Error {
	var nf *ent.NotFoundError
	var ve *ent.ValidationError
	switch {
	case errors.As(err, &nf):
		return &Error{Kind: KindNotFound, Message: notFoundMessage(nf), Cause: err}
	case errors.As(err, &ve):
		// A value the schema refuses (an enum outside its set, a missing
		// required edge): the field by its wire name, not ent's wording.
		return &Error{Kind: KindInvalid, Message: wireName(ve.Name) + " is not a valid value", Cause: err}
	case sqlgraph.IsUniqueConstraintError(err):
		return &Error{Kind: KindConflict, Message: "a record with the same unique value already exists", Cause: err}
	case ent.IsConstraintError(err), sqlgraph.IsConstraintError(err):
		return &Error{Kind: KindInvalid, Message: "the request refers to a record that does not exist or breaks a rule of the data", Cause: err}
	}
	return nil
}

// notFoundMessage names the missing record in words: ent's "ent: queue_item
// not found" becomes "queue item not found".
func notFoundMessage(nf *ent.NotFoundError) string {
	return strings.ReplaceAll(strings.TrimPrefix(nf.Error(), "ent: "), "_", " ")
}

// wireName is a column's JSON name: "task_origin" becomes "taskOrigin".
func wireName(column string) string {
	parts := strings.Split(column, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}
