package economy

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contractreview"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/runes"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
)

// Mutual blind reviews (RULINGS "The task economy": Reviews): each side
// reviews the other within 14 days of closing; a review is shown to the
// other side, and counts for its reviewee's reputation, once both are in
// or the window has ended. Over the network each instance keeps its own
// review, tells the other at once that it exists, and sends its content
// only then (reconciliation 17).

// Scores are one review's four scores (1 to 5) and its optional text.
type Scores struct {
	Overall, Communication, Quality, Timeliness int
	Text                                        string
}

// Review records side's review of c.
func (s *Core) Review(ctx context.Context, tx *db.Tx, c *ent.Contract, side, actor string, sc Scores) (*ent.Contract, error) {
	if err := tx.Serialize(ctx, "contract "+c.ID); err != nil {
		return nil, err
	}
	c, err := tx.Contract.Get(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if _, err := rules.Check(string(c.Status), rules.Review, side); err != nil {
		return nil, Refusal(err)
	}
	now := s.now()
	if c.ReviewWindowEndsAt == nil || !rules.ReviewOpen(*c.ReviewWindowEndsAt, now) {
		return nil, apperr.IllegalMove("the review window of contract %s ended %s", c.ID, deref(timeText(c.ReviewWindowEndsAt)))
	}
	taken, err := tx.ContractReview.Query().Where(contractreview.ContractID(c.ID), contractreview.ByEQ(contractreview.By(side))).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if taken {
		return nil, apperr.Conflict("you have reviewed contract %s already", c.ID)
	}
	if err := tx.ContractReview.Create().SetContractID(c.ID).SetBy(contractreview.By(side)).
		SetNillableReviewerUserID(opt(LocalUser(c, side))).SetOverall(sc.Overall).SetCommunication(sc.Communication).
		SetQuality(sc.Quality).SetTimeliness(sc.Timeliness).SetNillableText(opt(sc.Text)).
		SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
		return nil, err
	}
	if _, err := s.writeEntry(ctx, tx, c, entry{kind: rules.Review, by: side}); err != nil {
		return nil, err
	}
	if err := s.tell(ctx, tx, c, Move{Kind: rules.Review, By: side, Actor: actor}, actions[rules.Review],
		fmt.Sprintf("The %s reviewed %q; each side sees the other's review once both are in or 14 days have passed", side, c.Title)); err != nil {
		return nil, err
	}
	if Remote(c) {
		if c.CounterpartReviewed {
			return s.sendReview(ctx, tx, c)
		}
		// Told at once, without content.
		if err := s.toPeer(ctx, tx, c, &switchboardv1.ReceiveContractMoveRequest{Move: rules.Review}); err != nil {
			return nil, err
		}
	}
	return c, s.reveal(ctx, tx, c)
}

// sendReview sends this side's review content to the other instance, once.
func (s *Core) sendReview(ctx context.Context, tx *db.Tx, c *ent.Contract) (*ent.Contract, error) {
	own, err := tx.ContractReview.Query().Where(contractreview.ContractID(c.ID),
		contractreview.ByNEQ(contractreview.By(RemoteSide(c)))).Only(ctx)
	if ent.IsNotFound(err) {
		return c, nil
	} else if err != nil {
		return nil, err
	}
	if err := s.toPeer(ctx, tx, c, &switchboardv1.ReceiveContractMoveRequest{Move: rules.Review, Review: wireReview(own)}); err != nil {
		return nil, err
	}
	c, err = c.Update().SetReviewSent(true).SetUpdatedAt(s.now()).Save(ctx)
	if err != nil {
		return nil, err
	}
	return c, s.reveal(ctx, tx, c)
}

func wireReview(r *ent.ContractReview) *switchboardv1.ContractReview {
	return &switchboardv1.ContractReview{Id: r.ID, By: string(r.By), Overall: int32(r.Overall), //nolint:gosec // 1 to 5
		Communication: int32(r.Communication), Quality: int32(r.Quality), Timeliness: int32(r.Timeliness), //nolint:gosec // 1 to 5
		Text: r.Text, Visibility: string(r.Visibility), CreatedAt: timestamppb.New(r.CreatedAt)}
}

// reveal shows c's reviews to their local reviewees when both are in or
// the window has ended, and recomputes those reviewees' reputations.
func (s *Core) reveal(ctx context.Context, tx *db.Tx, c *ent.Contract) error {
	rs, err := tx.ContractReview.Query().Where(contractreview.ContractID(c.ID)).All(ctx)
	if err != nil {
		return err
	}
	both := len(rs) == 2
	if !both && (c.ReviewWindowEndsAt == nil || !rules.ReviewsShown(false, *c.ReviewWindowEndsAt, s.now())) {
		return nil
	}
	for _, r := range rs {
		u := LocalUser(c, OtherSide(string(r.By)))
		if u == "" || r.RevieweeUserID != nil {
			continue
		}
		if err := r.Update().SetRevieweeUserID(u).SetUpdatedAt(s.now()).Exec(ctx); err != nil {
			return err
		}
		if s.Reputation != nil {
			if err := s.Reputation(ctx, tx, s.now(), u); err != nil {
				return err
			}
		}
		if _, err := post(ctx, tx, s.now(), u, fmt.Sprintf("The %s's review of %q is in: %d of 5 overall", r.By, c.Title, r.Overall),
			"economy", map[string]any{"type": "contract_move", "contractId": c.ID, "move": rules.Review, "status": string(c.Status)}); err != nil {
			return err
		}
	}
	return nil
}

// Reviewed takes the other instance's review news: a notice (no content)
// or the content, stored as the remote side's review.
func (s *Core) Reviewed(ctx context.Context, tx *db.Tx, c *ent.Contract, in *switchboardv1.ContractReview) (*ent.Contract, error) {
	now := s.now()
	up := c.Update().SetCounterpartReviewed(true).SetUpdatedAt(now)
	if in != nil {
		side := RemoteSide(c)
		score := func(v int32) int { return max(1, min(5, int(v))) }
		vis := contractreview.VisibilityPublic
		if in.GetVisibility() == string(contractreview.VisibilityHidden) {
			vis = contractreview.VisibilityHidden
		}
		existing, err := tx.ContractReview.Query().Where(contractreview.ContractID(c.ID), contractreview.ByEQ(contractreview.By(side))).Only(ctx)
		switch {
		case ent.IsNotFound(err):
			if err := tx.ContractReview.Create().SetContractID(c.ID).SetBy(contractreview.By(side)).SetOverall(score(in.GetOverall())).
				SetCommunication(score(in.GetCommunication())).SetQuality(score(in.GetQuality())).SetTimeliness(score(in.GetTimeliness())).
				SetNillableText(opt(runes.Prefix(in.GetText(), 5000))).SetVisibility(vis).SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
				return nil, err
			}
		case err != nil:
			return nil, err
		default: // the reviewer changed who may read its text
			if err := existing.Update().SetVisibility(vis).SetUpdatedAt(now).Exec(ctx); err != nil {
				return nil, err
			}
		}
	}
	c, err := up.Save(ctx)
	if err != nil {
		return nil, err
	}
	if !c.ReviewSent {
		if c, err = s.sendReview(ctx, tx, c); err != nil {
			return nil, err
		}
	}
	for _, u := range []string{LocalUser(c, rules.Client), LocalUser(c, rules.Provider)} {
		if u == "" {
			continue
		}
		if err := activity.Write(ctx, tx, activity.Entry{UserID: u, Action: actions[rules.Review], Actor: c.PartyName, At: now,
			Summary:  fmt.Sprintf("The %s reviewed %q", RemoteSide(c), c.Title),
			Metadata: map[string]any{"contractId": c.ID, "move": rules.Review}}); err != nil {
			return nil, err
		}
	}
	return c, s.reveal(ctx, tx, c)
}

// SetVisibility shows or hides the text of the caller's own review.
func (s *Core) SetVisibility(ctx context.Context, tx *db.Tx, userID, reviewID, visibility string) (*ent.ContractReview, error) {
	r, err := tx.ContractReview.Query().Where(contractreview.ID(reviewID), contractreview.ReviewerUserID(userID)).WithContract().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("review %s not found", reviewID)
	} else if err != nil {
		return nil, err
	}
	r, err = r.Update().SetVisibility(contractreview.Visibility(visibility)).SetUpdatedAt(s.now()).Save(ctx)
	if err != nil {
		return nil, err
	}
	if c := r.Edges.Contract; c != nil && Remote(c) && c.ReviewSent {
		if err := s.toPeer(ctx, tx, c, &switchboardv1.ReceiveContractMoveRequest{Move: rules.Review, Review: wireReview(r)}); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func timeText(t *time.Time) *string {
	if t == nil {
		return nil
	}
	v := t.UTC().Format("2006-01-02 15:04 UTC")
	return &v
}
