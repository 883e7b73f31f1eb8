package render

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The REST walk writes timestamps itself (fast.go); every one must be the
// bytes protojson writes, and every one protojson refuses must be refused.
func TestTimestampsAsProtojson(t *testing.T) {
	stamps := []*timestamppb.Timestamp{
		{}, {Seconds: minTimestampSeconds}, {Seconds: maxTimestampSeconds, Nanos: 999_999_999},
		{Seconds: 1, Nanos: 1}, {Seconds: 1, Nanos: 1000}, {Seconds: 1, Nanos: 1_000_000}, {Seconds: 1, Nanos: 100_000_000},
		{Seconds: -1, Nanos: 500_000_000}, {Seconds: 1_764_504_000, Nanos: 123_000},
		// Refused by both.
		{Seconds: minTimestampSeconds - 1}, {Seconds: maxTimestampSeconds + 1}, {Nanos: -1}, {Nanos: 1_000_000_000},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		nanos := rng.Int32N(1_000_000_000)
		switch rng.IntN(4) { // the fraction's three lengths, and none
		case 0:
			nanos = 0
		case 1:
			nanos -= nanos % 1_000_000
		case 2:
			nanos -= nanos % 1000
		}
		stamps = append(stamps, &timestamppb.Timestamp{Seconds: rng.Int64N(maxTimestampSeconds-minTimestampSeconds) + minTimestampSeconds, Nanos: nanos})
	}
	for _, ts := range stamps {
		got, gotErr := AppendREST(nil, ts)
		want, wantErr := protojson.Marshal(ts)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%v: error %v, protojson's %v", ts, gotErr, wantErr)
		}
		if wantErr != nil {
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, compact.Bytes()) {
			t.Fatalf("%v: %s, protojson writes %s", ts, got, compact.Bytes())
		}
	}
}
