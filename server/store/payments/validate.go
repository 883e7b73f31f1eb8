package payments

import (
	"fmt"
	"math"
	"strconv"

	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// RecruitingMinFeePercent is the recruiting fee floor (document 2, "Limits":
// 15 percent store, 10 percent recruiting).
const RecruitingMinFeePercent = 10.0

// The transaction types of validate-payment, and the floor of each: a sale in
// the store (marketplace) and a hire (recruiting).
const (
	TransactionMarketplace = "marketplace"
	TransactionRecruiting  = "recruiting"
)

// TransactionTypes is validate-payment's transactionType enumeration.
var TransactionTypes = []string{TransactionMarketplace, TransactionRecruiting}

// FloorPercent is the minimum fee of a transaction type.
func FloorPercent(transactionType string) (float64, bool) {
	switch transactionType {
	case TransactionMarketplace:
		return MinFeePercent, true
	case TransactionRecruiting:
		return RecruitingMinFeePercent, true
	}
	return 0, false
}

// Validation is validate-payment's answer (RULINGS "Federation: instances and
// the platform"); amounts in cents, rendered as the wire's numbers by the
// transport.
type Validation struct {
	// Valid is false when the proposed fee is below the floor.
	Valid              bool
	TransactionType    string
	GrossAmount        money.Cents
	ProposedFeePercent float64
	FloorPercent       float64
	// EnforcedFeePercent is the larger of the proposed fee and the floor;
	// PlatformFee and DeveloperPayout are the split at it.
	EnforcedFeePercent float64
	PlatformFee        money.Cents
	DeveloperPayout    money.Cents
	// Reason says in a sentence why the payment is or is not valid.
	Reason string
}

// ValidatePayment checks a spoke's proposed fee against the floor of its
// transaction type and answers the split the hub enforces, with the store's
// own rule (split: fee rounded half away from zero to the cent, the developer
// gets the rest). grossAmount is the wire's number: finite, not negative, at
// most money.MaxUnits, whole cents; proposedFeePercent is in [0, 100]. Bad
// input is an apperr.Invalid naming the field.
func ValidatePayment(transactionType string, grossAmount, proposedFeePercent float64) (Validation, error) {
	if err := apperr.OneOf("transactionType", transactionType, TransactionTypes); err != nil {
		return Validation{}, err
	}
	gross, err := money.FromFloat(grossAmount)
	if err != nil {
		return Validation{}, apperr.Invalid("grossAmount must be a number from 0 to %d with at most two decimals",
			int64(money.MaxUnits))
	}
	if math.IsNaN(proposedFeePercent) || proposedFeePercent < 0 || proposedFeePercent > 100 {
		return Validation{}, apperr.Invalid("proposedFeePercent must be a number from 0 to 100")
	}
	floor, _ := FloorPercent(transactionType)
	r := split(gross, proposedFeePercent, floor, "")
	v := Validation{Valid: proposedFeePercent >= floor, TransactionType: transactionType, GrossAmount: gross,
		ProposedFeePercent: proposedFeePercent, FloorPercent: floor, EnforcedFeePercent: r.FeePercent,
		PlatformFee: r.PlatformFee, DeveloperPayout: r.DeveloperPayout}
	if v.Valid {
		v.Reason = fmt.Sprintf("the proposed fee of %s%% meets the %s%% floor for %s",
			pct(proposedFeePercent), pct(floor), transactionType)
	} else {
		v.Reason = fmt.Sprintf("the proposed fee of %s%% is below the %s%% floor for %s; %s%% is enforced",
			pct(proposedFeePercent), pct(floor), transactionType, pct(floor))
	}
	return v, nil
}

// pct writes a percentage in its shortest form (15, 14.99).
func pct(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
