package contacts

import (
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent/contact"
	"github.com/switchboard-hq/switchboard/ent/predicate"
)

// The list's filters match case-sensitive substrings (docs/decisions.md "Kanban
// and contacts"). ent's Contains is LIKE, which SQLite folds for ASCII and
// PostgreSQL does not, so the predicates here use each database's position
// function instead, with the needle always bound as a parameter (no LIKE
// wildcards to escape).

// containsIn matches rows where any of cols contains needle.
func containsIn(dia, needle string, cols ...string) predicate.Contact {
	return func(s *sql.Selector) {
		preds := make([]*sql.Predicate, 0, len(cols))
		for _, col := range cols {
			c := s.C(col)
			preds = append(preds, sql.P(func(b *sql.Builder) {
				b.WriteString(position(dia)).WriteString("(").WriteString(c).Comma().Arg(needle).WriteString(") > 0")
			}))
		}
		s.Where(sql.Or(preds...))
	}
}

// tagContains matches rows with a tag that contains needle.
func tagContains(dia, needle string) predicate.Contact {
	return func(s *sql.Selector) {
		tags := s.C(contact.FieldTags)
		s.Where(sql.P(func(b *sql.Builder) {
			if dia == dialect.Postgres {
				// tags is jsonb on PostgreSQL.
				b.WriteString("EXISTS (SELECT 1 FROM jsonb_array_elements_text(").WriteString(tags).
					WriteString(") AS t(v) WHERE strpos(t.v, ").Arg(needle).WriteString(") > 0)")
				return
			}
			b.WriteString("EXISTS (SELECT 1 FROM json_each(").WriteString(tags).
				WriteString(") AS t WHERE t.type = 'text' AND instr(t.value, ").Arg(needle).WriteString(") > 0)")
		}))
	}
}

func position(dia string) string {
	if dia == dialect.Postgres {
		return "strpos"
	}
	return "instr"
}

// byName orders by name in code-point order on both databases (PostgreSQL's
// default collation would otherwise fold case and punctuation), then by id so
// that pages never overlap.
func byName(dia string) contact.OrderOption {
	return func(s *sql.Selector) {
		col := s.C(contact.FieldName)
		if dia == dialect.Postgres {
			col += ` COLLATE "C"`
		}
		s.OrderExpr(sql.Expr(col), sql.Expr(s.C(contact.FieldID)))
	}
}
