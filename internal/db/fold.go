package db

import (
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
)

// FoldASCII lowercases A–Z only: what lower() does on SQLite and on
// PostgreSQL under COLLATE "C", so a needle folded here compares equal to a
// column folded there whatever the database's locale.
func FoldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// FoldedPosition writes the 1-based position of needle (already folded with
// FoldASCII) in the ASCII-folded column col, 0 when absent. The needle is a
// bound parameter, so % and _ are plain characters.
func FoldedPosition(b *sql.Builder, dia, col, needle string) {
	if dia == dialect.Postgres {
		b.WriteString(`strpos(lower(`).WriteString(col).WriteString(` COLLATE "C")`)
	} else {
		b.WriteString("instr(lower(").WriteString(col).WriteString(")")
	}
	b.Comma().Arg(needle).WriteString(")")
}

// ContainsFolded keeps rows where any of cols contains needle (already
// folded), ignoring ASCII case the same way on both databases; every row when
// the needle is empty. NULL columns never match. Convert the result to the
// entity's predicate type (predicate.X(...)).
func ContainsFolded(dia, needle string, cols ...string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if needle == "" {
			return
		}
		preds := make([]*sql.Predicate, 0, len(cols))
		for _, c := range cols {
			col := s.C(c)
			preds = append(preds, sql.P(func(b *sql.Builder) {
				FoldedPosition(b, dia, col, needle)
				b.WriteString(" > 0")
			}))
		}
		s.Where(sql.Or(preds...))
	}
}

// JSONContainsFolded is ContainsFolded over the text of a JSON column (a
// list of strings, such as a listing's task types); on PostgreSQL the jsonb
// column is read as its text.
func JSONContainsFolded(dia, needle, col string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if needle == "" {
			return
		}
		c := s.C(col)
		if dia == dialect.Postgres {
			c += "::text"
		}
		s.Where(sql.P(func(b *sql.Builder) {
			FoldedPosition(b, dia, c, needle)
			b.WriteString(" > 0")
		}))
	}
}
