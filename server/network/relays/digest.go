package relays

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkpreference"
	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/timers"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

// The two digests (RULINGS "The proactive layer": delivered by a timer and
// at the next conversation, not only when a list is read): the relays kept
// during quiet hours, due when they end, and what peers changed on linked
// cards, which is silent until the card digest tells of it.
const (
	// cardDigestDelay gathers a peer's burst of moves on linked cards into
	// one message: the digest is due this long after the first change not
	// yet told (or when quiet hours end, if later).
	cardDigestDelay = time.Hour
	// digestPoll bounds how long the timer sleeps without looking: a relay
	// kept for quiet hours is written by the peer's call, which does not
	// wake it.
	digestPoll = 5 * time.Minute
	// commsCardDigest is the card digest's comms message type.
	commsCardDigest = "linked_card_digest"
)

// digestLoop is the started timer, woken when a card's digest becomes due.
type digestLoop struct{ atomic.Pointer[alarm.Loop] }

func (d *digestLoop) wake() {
	if l := d.Load(); l != nil {
		l.Wake()
	}
}

// DigestTimer is the digests' timer's name in the registry.
const DigestTimer = "relay_digests"

// StartDigests starts the digests' timer in set; Close the answer to
// stop it.
func (s *Service) StartDigests(set *timers.Set) *alarm.Loop {
	l := set.Start(timers.Timer{Name: DigestTimer, Poll: digestPoll, Pass: s.DueDigests})
	s.digests.Store(l)
	return l
}

// DueDigests delivers every digest due by now and answers when the next one
// is due (zero: none waits). Replicas may run it at once: each delivery
// re-reads its rows under the user's lock and clears them, so a digest is
// told once.
func (s *Service) DueDigests(ctx context.Context) (time.Time, error) {
	now := s.core.NowUTC()
	users, err := s.core.DB.Relay.Query().Where(relay.DigestPending(true), relay.DigestDueLTE(now)).
		Unique(true).Select(relay.FieldUserID).Strings(ctx)
	if err != nil {
		return time.Time{}, err
	}
	for _, u := range users {
		if err := s.deliverDigests(ctx, u); err != nil {
			return time.Time{}, err
		}
	}
	fired := len(users) > 0
	users, err = s.core.DB.NetworkPreference.Query().Where(networkpreference.CardsDigestDueLTE(now)).
		Select(networkpreference.FieldUserID).Strings(ctx)
	if err != nil {
		return time.Time{}, err
	}
	for _, u := range users {
		if err := s.core.DB.InTx(ctx, func(tx *db.Tx) error { return s.deliverCardDigest(ctx, tx, u, now, true) }); err != nil {
			return time.Time{}, err
		}
	}
	if fired || len(users) > 0 {
		alarm.Fired(ctx)
	}
	var next time.Time
	r, err := s.core.DB.Relay.Query().Where(relay.DigestPending(true), relay.DigestDueNotNil()).
		Order(ent.Asc(relay.FieldDigestDue)).First(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return time.Time{}, err
	}
	if r != nil {
		next = *r.DigestDue
	}
	p, err := s.core.DB.NetworkPreference.Query().Where(networkpreference.CardsDigestDueNotNil()).
		Order(ent.Asc(networkpreference.FieldCardsDigestDue)).First(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return time.Time{}, err
	}
	if p != nil && (next.IsZero() || p.CardsDigestDue.Before(next)) {
		next = *p.CardsDigestDue
	}
	return next, nil
}

// CardHeard hears kanban.LinkedCardHeard in the change's unit of work: the
// user's card digest becomes due cardDigestDelay after the first change not
// yet told, or when quiet hours end if that is later.
func (s *Service) CardHeard(ctx context.Context, tx *db.Tx, ev kanban.LinkedCardHeard) error {
	if err := tx.Serialize(ctx, digestLock(ev.UserID)); err != nil {
		return err
	}
	prefs, err := s.core.RelayPrefs(ctx, tx, ev.UserID)
	if err != nil {
		return err
	}
	due := ev.At.Add(cardDigestDelay)
	if end, quiet := rules.QuietEnds(prefs, due); quiet {
		due = end
	}
	pref, err := tx.NetworkPreference.Query().Where(networkpreference.UserID(ev.UserID)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		err = tx.NetworkPreference.Create().SetUserID(ev.UserID).SetCardsDigestDue(due).Exec(ctx)
	case err != nil:
	case pref.CardsDigestDue == nil:
		err = pref.Update().SetCardsDigestDue(due).Exec(ctx)
	}
	if err != nil {
		return err
	}
	tx.AfterCommit(s.digests.wake)
	return nil
}

// TurnStarted hears the operator begin a conversation with the assistant
// (assistant.TurnStarted), in its unit of work: both digests are told at
// once, whether or not their timer is due, so the assistant's reply can
// speak of them.
func (s *Service) TurnStarted(ctx context.Context, tx *db.Tx, userID string) error {
	now := s.core.NowUTC()
	if err := s.deliverDigestsTx(ctx, tx, userID, now); err != nil {
		return err
	}
	return s.deliverCardDigest(ctx, tx, userID, now, false)
}

// deliverCardDigest posts one comms message listing what peers changed on
// userID's linked cards since the last digest, and marks them told; onlyDue
// delivers only a digest whose time has come (the timer's pass).
func (s *Service) deliverCardDigest(ctx context.Context, tx *db.Tx, userID string, now time.Time, onlyDue bool) error {
	if err := tx.Serialize(ctx, digestLock(userID)); err != nil {
		return err
	}
	pref, err := tx.NetworkPreference.Query().Where(networkpreference.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if onlyDue && (pref.CardsDigestDue == nil || pref.CardsDigestDue.After(now)) {
		return nil
	}
	var since time.Time
	if pref.CardsDigestedAt != nil {
		since = *pref.CardsDigestedAt
	}
	cards, err := cardDigest(ctx, tx.Card, userID, since)
	if err != nil {
		return err
	}
	if len(cards) == 0 {
		return pref.Update().ClearCardsDigestDue().Exec(ctx)
	}
	lines := []string{fmt.Sprintf("%d linked cards changed on your connections' boards:", len(cards))}
	ids := make([]string, 0, len(cards))
	// Told through the last change it tells, not through now: a change
	// stamped at the same instant as the digest is not lost.
	through := since
	for _, c := range cards {
		for _, ch := range c.GetChangeLog() {
			lines = append(lines, fmt.Sprintf("- %s: %s set it to %s (%s)", c.GetTitle(), ch.GetFrom(), ch.GetNewStatus(), ch.GetNewPriority()))
			if at := ch.GetReceivedAt().AsTime(); at.After(through) {
				through = at
			}
		}
		ids = append(ids, c.GetId())
	}
	if err := pref.Update().ClearCardsDigestDue().SetCardsDigestedAt(through).Exec(ctx); err != nil {
		return err
	}
	_, err = comms.Post(ctx, tx, now, userID, strings.Join(lines, "\n"), "network",
		map[string]any{"type": commsCardDigest, "cardIds": ids})
	return err
}

// digestLock serializes one user's digests across replicas.
func digestLock(userID string) string { return "network-digest:" + userID }

// deliverDigests is deliverDigestsTx in a unit of work of its own.
func (s *Service) deliverDigests(ctx context.Context, userID string) error {
	now := s.core.NowUTC()
	return s.core.DB.InTx(ctx, func(tx *db.Tx) error { return s.deliverDigestsTx(ctx, tx, userID, now) })
}

// deliverDigestsTx posts, for userID, one comms message listing the relays
// kept during quiet hours that have ended by now, and clears them.
func (s *Service) deliverDigestsTx(ctx context.Context, tx *db.Tx, userID string, now time.Time) error {
	due, err := tx.Relay.Query().Where(relay.UserID(userID), relay.DigestPending(true), relay.DigestDueLTE(now)).
		Order(ent.Asc(relay.FieldCreatedAt), ent.Asc(relay.FieldID)).All(ctx)
	if err != nil || len(due) == 0 {
		return err
	}
	lines := make([]string, 0, len(due)+1)
	lines = append(lines, fmt.Sprintf("%d relays arrived during quiet hours:", len(due)))
	relayIDs := make([]string, 0, len(due))
	for _, r := range due {
		lines = append(lines, fmt.Sprintf("- %s: %s", r.FromUserName, r.Subject))
		relayIDs = append(relayIDs, r.ID)
	}
	// Another replica's pass may have told them first: only the one that
	// clears them posts.
	n, err := tx.Relay.Update().Where(relay.IDIn(relayIDs...), relay.DigestPending(true)).SetDigestPending(false).Save(ctx)
	if err != nil || n == 0 {
		return err
	}
	_, err = comms.Post(ctx, tx, now, userID, strings.Join(lines, "\n"), "network",
		map[string]any{"type": network.CommsDigest, "relayIds": relayIDs})
	return err
}
