package rules

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// allowed is the state table as RULINGS words it, one line per allowed
// (state, move, side): every other cell is refused.
const allowed = `
offered accept provider active
offered decline provider declined
offered withdraw client withdrawn
active deliver provider delivered
delivered deliver provider delivered
delivered close client closed
active dispute client disputed
active dispute provider disputed
delivered dispute client disputed
delivered dispute provider disputed
disputed resolve admin closed
delivered expire timer closed
active update client active
active update provider active
delivered update client delivered
delivered update provider delivered
disputed update client disputed
disputed update provider disputed
active question client active
active question provider active
delivered question client delivered
delivered question provider delivered
disputed question client disputed
disputed question provider disputed
active answer client active
active answer provider active
delivered answer client delivered
delivered answer provider delivered
disputed answer client disputed
disputed answer provider disputed
active scope client active
active scope_accept provider active
active scope_decline provider active
active suggest_close provider active
delivered suggest_close provider delivered
closed review client closed
closed review provider closed
`

func TestEveryStateEveryMoveEverySide(t *testing.T) {
	want := map[[3]string]string{}
	mayEver := map[[2]string]bool{} // (move, side) allowed in some state
	for _, line := range strings.Split(strings.TrimSpace(allowed), "\n") {
		f := strings.Fields(line)
		want[[3]string{f[0], f[1], f[2]}] = f[3]
		mayEver[[2]string{f[1], f[2]}] = true
	}
	sides := []string{Client, Provider, Admin, Timer}
	cells := 0
	for _, st := range vocab.ContractStatusValues() {
		for _, mv := range vocab.ContractMoveValues() {
			for _, side := range sides {
				cells++
				to, err := Check(string(st), string(mv), side)
				exp, ok := want[[3]string{string(st), string(mv), side}]
				switch {
				case ok && err != nil:
					t.Errorf("%s %s by %s: refused (%v), want → %s", st, mv, side, err, exp)
				case ok && to != exp:
					t.Errorf("%s %s by %s: → %s, want → %s", st, mv, side, to, exp)
				case !ok && err == nil:
					t.Errorf("%s %s by %s: allowed (→ %s), want refused", st, mv, side, to)
				case !ok && mayEver[[2]string{string(mv), side}] && !errors.Is(err, ErrState):
					t.Errorf("%s %s by %s: %v, want ErrState (the side may, the state may not)", st, mv, side, err)
				case !ok && !mayEver[[2]string{string(mv), side}] && !errors.Is(err, ErrSide):
					t.Errorf("%s %s by %s: %v, want ErrSide", st, mv, side, err)
				}
			}
		}
	}
	if cells != 7*16*4 {
		t.Fatalf("walked %d cells, want every state × move × side (448)", cells)
	}
	if _, err := Check(Offered, "teleport", Client); !errors.Is(err, ErrState) {
		t.Errorf("an unknown move: %v", err)
	}
}

// A refusal names what would have been allowed, for the person reading it.
func TestRefusalsSayWhy(t *testing.T) {
	_, err := Check(Offered, Close, Client)
	if err == nil || !strings.Contains(err.Error(), "only when delivered") || !strings.Contains(err.Error(), "is offered") {
		t.Errorf("closing an offer: %v", err)
	}
	_, err = Check(Delivered, Close, Provider)
	if err == nil || !strings.Contains(err.Error(), "only the client may close") {
		t.Errorf("the provider closing: %v", err)
	}
}

// Moves from the other instance apply only forward: a replayed accept
// after a delivery, or an accept after a close, changes nothing.
func TestForwardOnly(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{Offered, Active, true}, {Active, Delivered, true}, {Delivered, Closed, true}, {Active, Disputed, true},
		{Delivered, Disputed, true}, {Disputed, Closed, true}, {Offered, Declined, true}, {Offered, Withdrawn, true},
		{Delivered, Active, false}, {Closed, Active, false}, {Closed, Delivered, false}, {Active, Active, false},
		{Disputed, Delivered, false}, {Declined, Active, false}, {Withdrawn, Closed, false}, {Closed, Declined, false},
	} {
		if got := Forward(c.from, c.to); got != c.want {
			t.Errorf("Forward(%s, %s) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}

// Money in cents: the fee is exactly ceil(10 percent); a split's provider
// share rounds down and the remainder goes back to the client; every
// payout adds up to the price.
func TestMoney(t *testing.T) {
	for _, c := range []struct {
		price money.Cents
		fee   money.Cents
	}{{1, 1}, {9, 1}, {10, 1}, {11, 2}, {99, 10}, {100, 10}, {101, 11}, {109, 11}, {110, 11}, {111, 12}, {10000, 1000}, {12345, 1235}, {0, 0}} {
		if got := Fee(c.price); got != c.fee {
			t.Errorf("Fee(%d) = %d, want %d", c.price, got, c.fee)
		}
		if c.price > 0 && (Fee(c.price)*10 < c.price) {
			t.Errorf("Fee(%d) = %d is under 10 percent", c.price, Fee(c.price))
		}
	}
	if p := Capture(10000); p != (Payout{Provider: 9000, Fee: 1000}) {
		t.Errorf("Capture(10000) = %+v", p)
	}
	if p := Capture(12345); p != (Payout{Provider: 11110, Fee: 1235}) {
		t.Errorf("Capture(12345) = %+v", p)
	}
	if p := Refund(12345); p != (Payout{Refund: 12345}) {
		t.Errorf("Refund(12345) = %+v", p)
	}
	for _, c := range []struct {
		price   money.Cents
		percent int
		want    Payout
	}{
		// 70 percent of 10000 is 7000: fee 700, provider 6300, client 3000.
		{10000, 70, Payout{Provider: 6300, Fee: 700, Refund: 3000}},
		// 70 percent of 12345 is 8641.5: the provider's share rounds down to
		// 8641 (fee ceil(864.1) = 865), the client gets 3704.
		{12345, 70, Payout{Provider: 7776, Fee: 865, Refund: 3704}},
		{101, 33, Payout{Provider: 29, Fee: 4, Refund: 68}},
		{1, 50, Payout{Provider: 0, Fee: 0, Refund: 1}},
		{999, 99, Payout{Provider: 890, Fee: 99, Refund: 10}},
	} {
		got := Split(c.price, c.percent)
		if got != c.want {
			t.Errorf("Split(%d, %d) = %+v, want %+v", c.price, c.percent, got, c.want)
		}
		if got.Provider+got.Fee+got.Refund != c.price {
			t.Errorf("Split(%d, %d) adds up to %d", c.price, c.percent, got.Provider+got.Fee+got.Refund)
		}
	}
	if _, err := Settle(100, "split", 0); err == nil {
		t.Error("a split without a percent settled")
	}
	if _, err := Settle(100, "split", 100); err == nil {
		t.Error("a split at 100 percent settled (that is release)")
	}
	if p, err := Settle(100, "release", 0); err != nil || p != Capture(100) {
		t.Errorf("release: %+v %v", p, err)
	}
	if p, err := Settle(100, "refund", 0); err != nil || p != Refund(100) {
		t.Errorf("refund: %+v %v", p, err)
	}
	if _, err := Settle(100, "keep", 0); err == nil {
		t.Error("an unknown outcome settled")
	}
}

func TestReviewsAreBlind(t *testing.T) {
	closed := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	ends := closed.Add(ReviewWindow)
	if ReviewsShown(false, ends, closed.Add(time.Hour)) {
		t.Error("one review in, window open: shown")
	}
	if !ReviewsShown(true, ends, closed.Add(time.Hour)) {
		t.Error("both in: hidden")
	}
	if ReviewsShown(false, ends, ends.Add(-time.Second)) || !ReviewsShown(false, ends, ends) {
		t.Error("the window's end is the moment reviews show")
	}
	if !ReviewOpen(ends, ends.Add(-time.Second)) || ReviewOpen(ends, ends) {
		t.Error("a review may be submitted until, not at, the window's end")
	}
}

func TestPriceFit(t *testing.T) {
	for _, c := range []struct {
		price, max money.Cents
		want       float64
	}{{0, 1000, 1}, {250, 1000, 0.75}, {1000, 1000, 0}, {1001, 1000, 0}, {500, 0, NeutralPriceFit}} {
		if got := PriceFit(c.price, c.max); got != c.want {
			t.Errorf("PriceFit(%d, %d) = %v, want %v", c.price, c.max, got, c.want)
		}
	}
	if Score(1, 1) != 1 || Score(0, 0) != 0 || Score(0.5, 1) <= Score(0.5, 0) {
		t.Error("Score does not weigh route and price fit")
	}
}

func TestTakes(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	later, earlier := now.Add(time.Minute), now.Add(-time.Minute)
	for _, tc := range []struct {
		name     string
		status   string
		awarded  bool
		closesAt *time.Time
		want     string // "" takes it
	}{
		{"open direct", string(vocab.JobStatusOpen), false, nil, ""},
		{"open auction before closesAt", string(vocab.JobStatusOpen), false, &later, ""},
		{"auction at closesAt", string(vocab.JobStatusOpen), false, &now, "its auction closed at 2026-12-01T12:00:00Z"},
		{"auction after closesAt", string(vocab.JobStatusOpen), false, &earlier, "its auction closed at"},
		{"closed", string(vocab.JobStatusClosed), false, nil, "it is closed"},
		{"awarded", string(vocab.JobStatusClosed), true, nil, "it was awarded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Takes(tc.status, tc.awarded, tc.closesAt, now)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !errors.Is(err, ErrJobShut) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want ErrJobShut saying %q", err, tc.want)
			}
		})
	}
}

func TestAuction(t *testing.T) {
	// max 10000: price fit 1 − price/10000, score 0.8 × route + 0.2 × fit.
	for _, tc := range []struct {
		name string
		bids []Bid
		want []string
	}{
		{"none", nil, []string{}},
		{"the better route wins at equal prices", []Bid{{"a", 0.5, 5000}, {"b", 0.7, 5000}}, []string{"b", "a"}},
		// a: 0.8×0.6 + 0.2×0.9 = 0.66; b: 0.8×0.65 + 0.2×0.2 = 0.56.
		{"a low price beats a slightly better route", []Bid{{"b", 0.65, 8000}, {"a", 0.6, 1000}}, []string{"a", "b"}},
		// Over the maximum the fit is 0: c 0.8×0.7 = 0.56; d 0.8×0.6 + 0.2×0.5 = 0.58.
		{"over the maximum fits nothing", []Bid{{"c", 0.7, 12000}, {"d", 0.6, 5000}}, []string{"d", "c"}},
		{"equal scores: the lower price", []Bid{{"e", 0.5, 5000}, {"f", 0.5, 5000}, {"g", 0.5, 4999}}, []string{"g", "e", "f"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := []string{}
			for _, w := range Auction(tc.bids, 10000) {
				got = append(got, w.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("ranked %v, want %v", got, tc.want)
			}
		})
	}
	if w := Auction([]Bid{{"a", 0.5, 2500}}, 10000)[0]; w.PriceFit != 0.75 || math.Abs(w.Score-0.55) > 1e-9 {
		t.Fatalf("a bid's fit and score: %+v", w)
	}
}
