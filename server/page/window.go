package page

import "entgo.io/ent/dialect/sql"

// Within keeps the rows of the page r of table's rows that match where, in
// the order given (which must end on a unique column): the page's ids are
// chosen by a subquery whose LIMIT and OFFSET are parameters, not numbers in
// the text, and the caller's query reads those rows by id and orders them
// again.
//
// Why: PostgreSQL plans a statement with a literal LIMIT from its
// statistics alone, and before a table's first ANALYZE it takes an account's
// rows for a handful, so it reads all of them and sorts them (milliseconds
// at ten thousand rows) instead of walking the (user_id, created_at) index
// for fifty. With parameters, the driver's prepared statement soon gets
// PostgreSQL's generic plan, which assumes a page is a fraction of the
// rows and walks the index, whatever the statistics say. PostgreSQL only:
// SQLite walks the index for a plain LIMIT, and sorts every row for this
// subquery (twenty times slower at ten thousand rows).
func Within[P ~func(*sql.Selector)](table, id string, where []P, order []string, r Request) P {
	return func(s *sql.Selector) {
		inner := sql.Dialect(s.Dialect()).Select(id).From(sql.Table(table).As("page"))
		for _, p := range where {
			p(inner)
		}
		inner.OrderBy(order...)
		s.Where(sql.P(func(b *sql.Builder) {
			b.Ident(s.C(id)).WriteString(" IN (").Join(inner).
				WriteString(" LIMIT ").Arg(r.Limit).WriteString(" OFFSET ").Arg(r.Offset).WriteString(")")
		}))
	}
}
