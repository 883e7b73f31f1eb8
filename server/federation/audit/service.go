package audit

import (
	"context"
	"math"
	"slices"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
)

// DefaultLimit is the audit list's page size without a stated limit (RULINGS:
// pages of 30).
const DefaultLimit = 30

// Service serves FederationAuditService to this instance's admin.
type Service struct {
	DB *ent.Client
	// Hub is true with --role hub: the outbox actions are a hub's.
	Hub bool
	// Retry is process_retries: the outbox attempts now the federation
	// deliveries waiting for a retry and answers the counts (action unset).
	Retry func(ctx context.Context) (*switchboardv1.RunFederationAuditActionResponse, error)
}

// admin refuses everyone but this instance's admin.
func admin(ctx context.Context) error {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return err
	}
	if p.Role != "admin" {
		return apperr.Forbidden("only this instance's admin may read its federation audit log or act on its outbox")
	}
	return nil
}

// RunFederationAuditAction runs an admin action on the federation outbox:
// process_retries (hub only).
func (s *Service) RunFederationAuditAction(ctx context.Context, req *switchboardv1.RunFederationAuditActionRequest) (*switchboardv1.RunFederationAuditActionResponse, error) {
	if err := admin(ctx); err != nil {
		return nil, err
	}
	if err := apperr.OneOf("action", req.GetAction(), vocab.Values("federation_audit_action")); err != nil {
		return nil, err
	}
	if !s.Hub || s.Retry == nil {
		return nil, apperr.NotFound("this instance is not a hub (it runs with --role standalone): %s is a hub's action", req.GetAction())
	}
	out, err := s.Retry(ctx)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	out.Action = req.GetAction()
	return out, nil
}

// ListFederationAudit answers a page of rows, newest first, or (view=stats)
// the counts and duration percentiles of every row the filters match.
func (s *Service) ListFederationAudit(ctx context.Context, req *switchboardv1.ListFederationAuditRequest) (*switchboardv1.ListFederationAuditResponse, error) {
	if err := admin(ctx); err != nil {
		return nil, err
	}
	view := req.GetView()
	if view == "" {
		view = "rows"
	}
	if err := apperr.OneOf("view", view, vocab.Values("federation_audit_view")); err != nil {
		return nil, err
	}
	var f page.Filters[predicate.FederationAuditLog]
	page.OneOf(&f, "direction", req.GetDirection(), vocab.Values("federation_direction"), federationauditlog.DirectionEQ)
	page.OneOf(&f, "status", req.GetStatus(), vocab.Values("federation_audit_status"), federationauditlog.StatusEQ)
	page.OneOf(&f, "threatLevel", req.GetThreatLevel(), vocab.Values("threat_level"), federationauditlog.ThreatLevelEQ)
	if f.Err != nil {
		return nil, f.Err
	}
	if e := req.GetEndpoint(); e != "" {
		f.Where = append(f.Where, federationauditlog.Endpoint(e))
	}
	if t := req.GetSince(); t != nil {
		f.Where = append(f.Where, federationauditlog.CreatedAtGTE(t.AsTime()))
	}
	if t := req.GetUntil(); t != nil {
		f.Where = append(f.Where, federationauditlog.CreatedAtLT(t.AsTime()))
	}
	if req.Blocked != nil {
		f.Where = append(f.Where, federationauditlog.Blocked(req.GetBlocked()))
	}
	q := s.DB.FederationAuditLog.Query().Where(f.Where...)
	if view == "stats" {
		stats, err := statsOf(ctx, q)
		if err != nil {
			return nil, err
		}
		return &switchboardv1.ListFederationAuditResponse{Stats: stats}, nil
	}
	limit := req.GetLimit()
	if limit == 0 {
		limit = DefaultLimit
	}
	pg, err := page.Parse(limit, req.GetOffset())
	if err != nil {
		return nil, err
	}
	if n := req.GetPage(); n > 0 {
		// Document 2's ?page= (1-based) wins over offset (RULINGS "Pages").
		pg.Offset = (int(n) - 1) * pg.Limit
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.Order(ent.Desc(federationauditlog.FieldCreatedAt), ent.Desc(federationauditlog.FieldID)).
		Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListFederationAuditResponse{
		Entries: make([]*switchboardv1.FederationAuditEntry, len(rows)), Pagination: pg.Of(total, len(rows)),
	}
	for i, r := range rows {
		out.Entries[i] = toProto(r)
	}
	return out, nil
}

func toProto(r *ent.FederationAuditLog) *switchboardv1.FederationAuditEntry {
	return &switchboardv1.FederationAuditEntry{
		Id: r.ID, Direction: string(r.Direction), Endpoint: r.Endpoint,
		SourceInstanceName: r.SourceInstanceName, TargetInstanceName: r.TargetInstanceName,
		Status: string(r.Status), StatusCode: int32(r.StatusCode), DurationMs: r.DurationMs,
		ThreatLevel: string(r.ThreatLevel), ThreatFlags: r.ThreatFlags, ModerationScore: r.ModerationScore,
		Blocked: r.Blocked, BlockReason: r.BlockReason, RetryCount: int32(r.RetryCount), CallerIp: r.CallerIP,
		Payload: r.Payload, ResponsePreview: r.ResponsePreview, CreatedAt: timestamppb.New(r.CreatedAt),
	}
}

// statRow is the part of a row the statistics read.
type statRow struct {
	Status      string `json:"status"`
	ThreatLevel string `json:"threat_level"`
	Endpoint    string `json:"endpoint"`
	DurationMs  int64  `json:"duration_ms"`
}

// statsOf counts the matching rows by status, threat level and endpoint and
// takes the nearest-rank p50 and p95 of their durations. Retention bounds
// the rows, so one pass over four columns is cheap enough.
func statsOf(ctx context.Context, q *ent.FederationAuditLogQuery) (*switchboardv1.FederationAuditStats, error) {
	var rows []statRow
	err := q.Select(federationauditlog.FieldStatus, federationauditlog.FieldThreatLevel,
		federationauditlog.FieldEndpoint, federationauditlog.FieldDurationMs).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	status, level, endpoint := map[string]int32{}, map[string]int32{}, map[string]int32{}
	durations := make([]int64, len(rows))
	for i, r := range rows {
		status[r.Status]++
		level[r.ThreatLevel]++
		endpoint[r.Endpoint]++
		durations[i] = r.DurationMs
	}
	slices.Sort(durations)
	return &switchboardv1.FederationAuditStats{
		Total: int32(len(rows)), ByStatus: counts(status), ByThreatLevel: counts(level), ByEndpoint: counts(endpoint),
		P50DurationMs: Percentile(durations, 50), P95DurationMs: Percentile(durations, 95),
	}, nil
}

// counts orders a tally: most rows first, then by value.
func counts(m map[string]int32) []*switchboardv1.FederationAuditCount {
	out := make([]*switchboardv1.FederationAuditCount, 0, len(m))
	for v, n := range m {
		out = append(out, &switchboardv1.FederationAuditCount{Value: v, Count: n})
	}
	slices.SortFunc(out, func(a, b *switchboardv1.FederationAuditCount) int {
		if a.Count != b.Count {
			return int(b.Count - a.Count)
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out
}

// Percentile is the nearest-rank p-th percentile of sorted values (0 for
// none): the smallest value with at least p % of the values at or below it.
func Percentile(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}
