package board

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/boardinsight"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/board/rules"
	"github.com/switchboard-hq/switchboard/server/kanban"
)

// ScanBoard is the caller's full scan.
func (s *Service) ScanBoard(ctx context.Context, _ *switchboardv1.ScanBoardRequest) (*switchboardv1.ScanBoardResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	o, err := s.Scan(ctx, p.UserID, p.Actor())
	if err != nil {
		return nil, err
	}
	active, err := activeInsights(ctx, s.DB.Client, p.UserID)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ScanBoardResponse{Scanned: int32(o.Cards), InsightsCreated: int32(len(o.Created)),
		Escalated: o.Escalated, Insights: make([]*switchboardv1.BoardInsight, len(active))}
	if out.Escalated == nil {
		out.Escalated = []string{}
	}
	for i, in := range active {
		out.Insights[i] = toInsight(in)
	}
	return out, nil
}

// GetBoardDigest answers the digest without writing: the stored active
// insights, and the stale and escalation cards as the rules find them now.
func (s *Service) GetBoardDigest(ctx context.Context, _ *switchboardv1.GetBoardDigestRequest) (*switchboardv1.GetBoardDigestResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	active, err := activeInsights(ctx, s.DB.Client, p.UserID)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.GetBoardDigestResponse{Counts: map[string]int32{},
		StaleCards: []*switchboardv1.BoardCardRef{}, EscalatedCards: []*switchboardv1.BoardCardRef{}}
	for _, t := range vocab.InsightTypeValues() {
		out.Counts[string(t)] = 0
	}
	for i, in := range active {
		out.Counts[string(in.Type)]++
		if i < DigestTop {
			out.Insights = append(out.Insights, toInsight(in))
		}
	}
	rows, cards, err := loadCards(ctx, s.DB.Client, p.UserID)
	if err != nil {
		return nil, err
	}
	r := rules.Scan(cards, s.now())
	byID := map[string]*ent.Card{}
	for _, c := range rows {
		byID[c.ID] = c
	}
	for _, id := range r.Stale {
		out.StaleCards = append(out.StaleCards, toRef(byID[id]))
	}
	for _, id := range r.Escalate {
		out.EscalatedCards = append(out.EscalatedCards, toRef(byID[id]))
	}
	return out, nil
}

// UpdateBoardInsight dismisses or applies one of the caller's active
// insights (another account's id is 404; one no longer active is 400).
func (s *Service) UpdateBoardInsight(ctx context.Context, req *switchboardv1.UpdateBoardInsightRequest) (*switchboardv1.UpdateBoardInsightResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	to := vocab.InsightStatus(req.GetStatus())
	if to != vocab.InsightStatusDismissed && to != vocab.InsightStatusApplied {
		return nil, apperr.Invalid("status %q is not one of %s, %s", req.GetStatus(), vocab.InsightStatusDismissed, vocab.InsightStatusApplied)
	}
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.BoardInsight, error) {
		in, err := tx.BoardInsight.Query().Where(boardinsight.ID(req.GetId()), boardinsight.UserID(p.UserID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("insight %q not found", req.GetId())
		}
		if err != nil {
			return nil, err
		}
		if in.Status != boardinsight.StatusActive {
			return nil, apperr.Invalid("insight %q is already %s", in.ID, in.Status)
		}
		now := s.now()
		if to == vocab.InsightStatusApplied {
			if err := s.apply(ctx, tx, p, in); err != nil {
				return nil, err
			}
		}
		return tx.BoardInsight.UpdateOne(in).SetStatus(boardinsight.Status(to)).SetUpdatedAt(now).Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateBoardInsightResponse{Insight: toInsight(out)}, nil
}

// apply makes an insight's change: a merge folds the source into the
// target, an archive candidate is archived; other types change no card.
func (s *Service) apply(ctx context.Context, tx *db.Tx, p *auth.Principal, in *ent.BoardInsight) error {
	live := func(id string) (*ent.Card, error) {
		c, err := tx.Card.Query().Where(card.ID(id), card.UserID(p.UserID)).Only(ctx)
		if ent.IsNotFound(err) || (err == nil && c.IsArchived) {
			return nil, apperr.Invalid("card %q of insight %q is no longer on the board", id, in.ID)
		}
		return c, err
	}
	now := s.now()
	switch vocab.InsightType(in.Type) {
	case vocab.InsightTypeMergeSuggestion:
		if err := kanban.LockColumns(ctx, tx, p.UserID); err != nil {
			return err
		}
		src, err := live(in.SourceID)
		if err != nil {
			return err
		}
		dst, err := live(in.TargetID)
		if err != nil {
			return err
		}
		return kanban.MergeInto(ctx, tx, src, dst, p.Actor(), now)
	case vocab.InsightTypeArchiveCandidate:
		c, err := live(in.SourceID)
		if err != nil {
			return err
		}
		return kanban.Archive(ctx, tx, c, p.Actor(), "completed and untouched for 30 days", now)
	}
	return nil
}

// CronCheck is the cron route's credential, checked by the gate before the
// body (server/credentials.go): 404 without a configured secret, whatever
// the request sends; 401 for a missing or wrong one. The secrets are
// compared as digests in constant time, so neither their bytes nor their
// lengths show in the timing.
func (s *Service) CronCheck(ctx context.Context) error {
	if s.CronSecret == "" {
		return apperr.NotFound("no cron secret is configured on this instance (--cron-secret)")
	}
	var got string
	if c := auth.CredentialsFrom(ctx); c != nil {
		got = c.CronSecret
		if got == "" {
			got = c.Bearer
		}
	}
	if got == "" {
		return apperr.Unauthenticated("missing cron secret: send X-Cron-Secret or Authorization: Bearer <secret>")
	}
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(s.CronSecret))
	if subtle.ConstantTimeCompare(a[:], b[:]) != 1 {
		return apperr.Unauthenticated("wrong cron secret")
	}
	return nil
}

// CortexScan scans every user's board, or the one named, each in its own
// unit of work.
func (s *Service) CortexScan(ctx context.Context, req *switchboardv1.CortexScanRequest) (*switchboardv1.CortexScanResponse, error) {
	if err := s.CronCheck(ctx); err != nil {
		return nil, err
	}
	q := s.DB.User.Query().Order(ent.Asc(user.FieldCreatedAt), ent.Asc(user.FieldID))
	if req.UserId != nil {
		q = q.Where(user.ID(req.GetUserId()))
	}
	users, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	if req.UserId != nil && len(users) == 0 {
		return nil, apperr.NotFound("user %q not found", req.GetUserId())
	}
	out := &switchboardv1.CortexScanResponse{Success: true, Results: []*switchboardv1.CronScanResult{}}
	for _, u := range users {
		o, err := s.Scan(ctx, u.ID, SystemActor)
		if err != nil {
			return nil, err
		}
		out.Results = append(out.Results, &switchboardv1.CronScanResult{UserId: u.ID, UserName: u.Name,
			CardCount: int32(o.Cards), InsightsFound: int32(len(o.Created)), Details: o.Details()})
	}
	out.Scanned = int32(len(out.Results))
	return out, nil
}

// ScanAll is the 6-hour timer's run: every user's scan.
func (s *Service) ScanAll(ctx context.Context) error {
	// Only boards with cards: an empty board has nothing to tell, and four
	// "board scanned" entries a day in its feed would be noise.
	ids, err := s.DB.User.Query().Where(user.HasCards()).Order(ent.Asc(user.FieldCreatedAt), ent.Asc(user.FieldID)).IDs(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := s.Scan(ctx, id, SystemActor); err != nil {
			return err
		}
	}
	return nil
}
