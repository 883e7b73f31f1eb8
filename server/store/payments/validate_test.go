package payments_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// Document 2, `/federation/validate-payment` and "Limits" (floors: 15 % store,
// 10 % recruiting), RULINGS (`valid` is false below the floor; the enforced
// fee is the larger of proposed and floor): at and around both floors, the
// ends of the range, odd cents and a zero gross, split by the store's one
// rounding rule.
func TestValidatePaymentFloors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ             string
		gross, proposed float64
		valid           bool
		floor, enforced float64
		fee, dev        money.Cents
	}{
		{"marketplace", 100, 14.99, false, 15, 15, 1500, 8500},
		{"marketplace", 100, 15, true, 15, 15, 1500, 8500},
		{"marketplace", 100, 15.01, true, 15, 15.01, 1501, 8499},
		{"recruiting", 100, 9.99, false, 10, 10, 1000, 9000},
		{"recruiting", 100, 10, true, 10, 10, 1000, 9000},
		{"recruiting", 100, 10.01, true, 10, 10.01, 1001, 8999},
		{"marketplace", 100, 0, false, 15, 15, 1500, 8500},
		{"recruiting", 100, 0, false, 10, 10, 1000, 9000},
		{"marketplace", 100, 100, true, 15, 100, 10000, 0},
		{"recruiting", 100, 100, true, 10, 100, 10000, 0},
		{"marketplace", 2.5, 15, true, 15, 15, 38, 212},           // 0.375 rounds half away from zero
		{"marketplace", 19.99, 15.01, true, 15, 15.01, 300, 1699}, // 3.0004999 rounds down
		{"recruiting", 0.05, 10, true, 10, 10, 1, 4},              // half a cent rounds up
		{"recruiting", 0.01, 9.99, false, 10, 10, 0, 1},           // a tenth of a cent rounds down
		{"recruiting", 33.33, 12.5, true, 10, 12.5, 417, 2916},
		{"marketplace", 0, 15, true, 15, 15, 0, 0},
		{"recruiting", 0, 3, false, 10, 10, 0, 0},
	} {
		v, err := payments.ValidatePayment(tc.typ, tc.gross, tc.proposed)
		if err != nil {
			t.Errorf("%s %v at %v: %v", tc.typ, tc.gross, tc.proposed, err)
			continue
		}
		gross, _ := money.FromFloat(tc.gross)
		if v.Valid != tc.valid || v.TransactionType != tc.typ || v.GrossAmount != gross ||
			v.ProposedFeePercent != tc.proposed || v.FloorPercent != tc.floor || v.EnforcedFeePercent != tc.enforced ||
			v.PlatformFee != tc.fee || v.DeveloperPayout != tc.dev || v.PlatformFee+v.DeveloperPayout != gross {
			t.Errorf("%s %v at %v: %+v", tc.typ, tc.gross, tc.proposed, v)
		}
		if below := strings.Contains(v.Reason, "below the"); below == tc.valid || v.Reason == "" {
			t.Errorf("%s %v at %v: reason %q", tc.typ, tc.gross, tc.proposed, v.Reason)
		}
	}
	// The store's split at its floor is the marketplace validation's split.
	r := payments.Split(1999, 15, "USD")
	v, _ := payments.ValidatePayment("marketplace", 19.99, 15)
	if r.PlatformFee != v.PlatformFee || r.DeveloperPayout != v.DeveloperPayout {
		t.Errorf("split %+v, validation %+v", r, v)
	}
}

// Bad input is a 400 naming the field.
func TestValidatePaymentRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ             string
		gross, proposed float64
		field           string
	}{
		{"", 10, 15, "transactionType"},
		{"Marketplace", 10, 15, "transactionType"},
		{"subscription", 10, 15, "transactionType"},
		{"marketplace", -0.01, 15, "grossAmount"},
		{"marketplace", math.NaN(), 15, "grossAmount"},
		{"marketplace", math.Inf(1), 15, "grossAmount"},
		{"marketplace", 0.001, 15, "grossAmount"},
		{"marketplace", 1e13, 15, "grossAmount"},
		{"recruiting", 10, -0.01, "proposedFeePercent"},
		{"recruiting", 10, 100.01, "proposedFeePercent"},
		{"recruiting", 10, math.NaN(), "proposedFeePercent"},
		{"recruiting", 10, math.Inf(-1), "proposedFeePercent"},
	} {
		_, err := payments.ValidatePayment(tc.typ, tc.gross, tc.proposed)
		var e *apperr.Error
		if !errors.As(err, &e) || e.Kind != apperr.KindInvalid || !strings.HasPrefix(e.Message, tc.field) {
			t.Errorf("%q %v %v: %v", tc.typ, tc.gross, tc.proposed, err)
		}
	}
}
