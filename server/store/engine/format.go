package engine

import (
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"
)

func tsp(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(t.UTC())
}

func formatAmount(v float64, currency string) string {
	return strconv.FormatFloat(v, 'f', 2, 64) + " " + currency
}
