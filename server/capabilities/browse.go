package capabilities

import (
	"context"
	"strings"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilityinstall"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
)

// maxSearch is the longest search, in characters.
const maxSearch = 100

// ListCapabilities browses every pack, newest first, for the caller.
func (s *Service) ListCapabilities(ctx context.Context, req *switchboardv1.ListCapabilitiesRequest) (*switchboardv1.ListCapabilitiesResponse, error) {
	p, err := auth.MustPrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	var where []predicate.CapabilityPack
	if c := strings.TrimSpace(req.GetCategory()); c != "" {
		if err := checkText("category", c, maxCategory); err != nil {
			return nil, err
		}
		where = append(where, capabilitypack.Category(c))
	}
	if q := strings.TrimSpace(req.GetSearch()); q != "" {
		if err := checkText("search", q, maxSearch); err != nil {
			return nil, err
		}
		if utf8.RuneCountInString(q) > maxSearch {
			return nil, apperr.Invalid("search is longer than %d characters", maxSearch)
		}
		where = append(where, matches(s.DB.Dialect, foldASCII(q),
			capabilitypack.FieldName, capabilitypack.FieldDescription, capabilitypack.FieldCategory))
	}
	if req.GetInstalled() {
		where = append(where, capabilitypack.HasInstallsWith(
			capabilityinstall.UserID(p.UserID), capabilityinstall.Active(true)))
	}
	total, err := s.DB.CapabilityPack.Query().Where(where...).Count(ctx)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	var rows []*ent.CapabilityPack
	if pg.Offset < total {
		rows, err = s.DB.CapabilityPack.Query().Where(where...).
			Order(ent.Desc(capabilitypack.FieldCreatedAt), ent.Desc(capabilitypack.FieldID)).
			Offset(pg.Offset).Limit(pg.Limit).All(ctx)
		if err != nil {
			return nil, apperr.Internal(err)
		}
	}
	installs, err := s.installsOf(ctx, p.UserID, rows)
	if err != nil {
		return nil, err
	}
	connected, err := s.connectedSet(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListCapabilitiesResponse{
		Capabilities: make([]*switchboardv1.CapabilityPack, 0, len(rows)), Pagination: pg.Of(total, len(rows)),
	}
	for _, r := range rows {
		v, err := s.toPack(p.UserID, r, installs[r.ID], connected)
		if err != nil {
			return nil, err
		}
		out.Capabilities = append(out.Capabilities, v)
	}
	return out, nil
}

// installsOf answers the caller's installation rows of the page's packs in
// one query.
func (s *Service) installsOf(ctx context.Context, userID string, rows []*ent.CapabilityPack) (map[string]*ent.CapabilityInstall, error) {
	out := map[string]*ent.CapabilityInstall{}
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	got, err := s.DB.CapabilityInstall.Query().
		Where(capabilityinstall.UserID(userID), capabilityinstall.CapabilityIDIn(ids...)).All(ctx)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	for _, g := range got {
		out[g.CapabilityID] = g
	}
	return out, nil
}

// matches keeps rows where any of cols contains needle, ignoring ASCII case
// the same way on both databases (the store's browse rule); the needle is a
// bound parameter, so % and _ are plain characters. NULL columns never match.
func matches(dia, needle string, cols ...string) predicate.CapabilityPack {
	return func(s *sql.Selector) {
		preds := make([]*sql.Predicate, 0, len(cols))
		for _, c := range cols {
			col := s.C(c)
			preds = append(preds, sql.P(func(b *sql.Builder) {
				if dia == dialect.Postgres {
					b.WriteString(`strpos(lower(`).WriteString(col).WriteString(` COLLATE "C")`)
				} else {
					b.WriteString("instr(lower(").WriteString(col).WriteString(")")
				}
				b.Comma().Arg(needle).WriteString(") > 0")
			}))
		}
		s.Where(sql.Or(preds...))
	}
}

// foldASCII lowercases A-Z only, as lower() does on SQLite and on
// PostgreSQL under COLLATE "C".
func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
