// Package money converts amounts between the wire's decimal numbers (JSON and
// protobuf doubles) and what the database stores: integer hundredths of the
// currency unit (cents), so sums and splits are exact integer arithmetic
// (docs/decisions.md, "Money in minor units").
package money

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Cents is an amount in hundredths of its currency's unit, whatever the
// currency: 250 is 2.50 USD or 2.50 EUR.
type Cents int64

// MaxUnits is the largest amount accepted, in currency units: its cents stay
// well inside the integers a double holds exactly (2^53), so Float answers
// the amount that was given.
const MaxUnits = 1_000_000_000_000

// Errors FromFloat and Round answer; callers turn them into their field's
// 400.
var (
	ErrNotFinite  = errors.New("not a finite number")
	ErrNegative   = errors.New("negative")
	ErrTooLarge   = fmt.Errorf("above %d", MaxUnits)
	ErrSubcent    = errors.New("more than two decimals")
	errNotDecimal = errors.New("not a decimal number")
)

// FromFloat reads an amount from the wire: finite, not negative, at most
// MaxUnits and with at most two decimals. The decimals are those of the
// shortest decimal spelling of the double (what JSON carried), so 19.99 is
// 1999 cents although 19.99 × 100 is 1998.9999… in binary.
func FromFloat(f float64) (Cents, error) {
	if f < 0 {
		return 0, ErrNegative
	}
	c, exact, err := parse(f)
	if err != nil {
		return 0, err
	}
	if !exact {
		return 0, ErrSubcent
	}
	return c, nil
}

// Round converts a stored decimal amount to cents, rounding half away from
// zero on its shortest decimal spelling (2.125 is 213, -2.125 is -213):
// the migration of amounts kept as doubles, which may be negative (ledger
// lines) or carry more than two decimals (listing prices accepted before).
func Round(f float64) (Cents, error) {
	c, _, err := parse(f)
	return c, err
}

// Float is the amount as the wire's number, in currency units.
func (c Cents) Float() float64 { return float64(c) / 100 }

// Ptr is Float for an optional amount.
func Ptr(c *Cents) *float64 {
	if c == nil {
		return nil
	}
	f := c.Float()
	return &f
}

// FloatOrZero is Float of an optional amount, 0 when there is none.
func FloatOrZero(c *Cents) float64 {
	if c == nil {
		return 0
	}
	return c.Float()
}

// Floats is Float of each amount, never nil (a list the REST form writes
// as []).
func Floats(cs []Cents) []float64 {
	out := make([]float64, len(cs))
	for i, c := range cs {
		out[i] = c.Float()
	}
	return out
}

// Percent is the share pct (in percent) of c, rounded half away from zero
// to the cent in integer arithmetic: pct is taken in hundredths of a
// percent, so 15 % of 2.50 is 0.375 → 0.38.
func (c Cents) Percent(pct float64) Cents {
	bp := int64(math.Round(pct * 100)) // basis points
	n := int64(c) * bp
	if n < 0 {
		return -Cents((-n + 5000) / 10000)
	}
	return Cents((n + 5000) / 10000)
}

// parse gives the cents of f rounded half away from zero, and whether no
// rounding was needed.
func parse(f float64) (c Cents, exact bool, err error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false, ErrNotFinite
	}
	if math.Abs(f) > MaxUnits {
		return 0, false, ErrTooLarge
	}
	s := strconv.FormatFloat(math.Abs(f), 'f', -1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%w: %s", errNotDecimal, s)
	}
	frac += "000"
	cents, _ := strconv.ParseInt(frac[:2], 10, 64)
	n := w*100 + cents
	if frac[2] >= '5' {
		n++
	}
	exact = strings.Trim(frac[2:], "0") == ""
	if f < 0 {
		n = -n
	}
	return Cents(n), exact, nil
}
