package money_test

import (
	"errors"
	"math"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/money"
)

// Amounts on the wire stay JSON numbers; what is stored is cents
// (docs/decisions.md, "Money in minor units").
func TestFromFloat(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want money.Cents
		err  error
	}{
		{0, 0, nil},
		{2.5, 250, nil},
		{0.38, 38, nil},
		{2.12, 212, nil},
		{19.99, 1999, nil}, // 19.99 × 100 is 1998.9999… in binary
		{0.29, 29, nil},    // 0.29 × 100 is 28.999…
		{1.1, 110, nil},
		{1_000_000, 100_000_000, nil},
		{money.MaxUnits, money.MaxUnits * 100, nil},
		{2.125, 0, money.ErrSubcent},
		{math.Nextafter(0.3, 1), 0, money.ErrSubcent}, // 0.30000000000000004, as 0.1 + 0.2 computes
		{0.001, 0, money.ErrSubcent},
		{-0.01, 0, money.ErrNegative},
		{math.NaN(), 0, money.ErrNotFinite},
		{math.Inf(1), 0, money.ErrNotFinite},
		{math.Inf(-1), 0, money.ErrNegative},
		{money.MaxUnits + 0.01, 0, money.ErrTooLarge},
		{1e300, 0, money.ErrTooLarge},
	} {
		got, err := money.FromFloat(tc.in)
		if !errors.Is(err, tc.err) || (tc.err == nil && got != tc.want) {
			t.Errorf("FromFloat(%v) = %d, %v; want %d, %v", tc.in, got, err, tc.want, tc.err)
		}
		if tc.err == nil && got.Float() != tc.in {
			t.Errorf("FromFloat(%v).Float() = %v", tc.in, got.Float())
		}
	}
}

// Stored doubles round half away from zero on their decimal spelling.
func TestRound(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want money.Cents
	}{
		{2.125, 213}, {-2.125, -213}, {2.675, 268}, {1.005, 101}, {-1.005, -101},
		{0.285, 29}, {2.124999, 212}, {-2.5, -250}, {19.99, 1999}, {math.Nextafter(0.2, 1), 20},
		{0.004, 0}, {0.005, 1}, {-0.005, -1}, {999_999.995, 100_000_000},
	} {
		got, err := money.Round(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Round(%v) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), -1e13} {
		if _, err := money.Round(bad); err == nil {
			t.Errorf("Round(%v) accepted", bad)
		}
	}
}

// The fee split of the store: integer arithmetic, half away from zero.
func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		c    money.Cents
		pct  float64
		want money.Cents
	}{
		{250, 15, 38}, // 0.375 → 0.38
		{213, 15, 32}, // 0.3195
		{1999, 15, 300},
		{100, 12.5, 13},
		{1, 15, 0},
		{3, 50, 2}, // 1.5 → 2
		{-3, 50, -2},
		{0, 15, 0},
		{1_000_000_000_00, 15, 15_000_000_000},
	} {
		if got := tc.c.Percent(tc.pct); got != tc.want {
			t.Errorf("%d.Percent(%v) = %d, want %d", tc.c, tc.pct, got, tc.want)
		}
	}
}

func TestPtr(t *testing.T) {
	if money.Ptr(nil) != nil {
		t.Fatal("Ptr(nil) is not nil")
	}
	c := money.Cents(1999)
	if p := money.Ptr(&c); p == nil || *p != 19.99 {
		t.Fatalf("Ptr(1999) = %v", p)
	}
}
