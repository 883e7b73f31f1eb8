package httpapi

import (
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/render"
)

// benchKeys is a ListKeysResponse with 50 keys, half of them with the
// optional timestamps set.
func benchKeys() *switchboardv1.ListKeysResponse {
	resp := &switchboardv1.ListKeysResponse{}
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 50 {
		k := &switchboardv1.ApiKey{
			Id:        fmt.Sprintf("ckx1f0c7p%04dqzrm9d3j1v6y", i),
			Label:     fmt.Sprintf("key number %d", i),
			Scopes:    []string{"queue", "kanban", "settings"}[:i%4%3],
			Prefix:    fmt.Sprintf("sbk_%04d", i),
			CreatedAt: timestamppb.New(base.Add(time.Duration(i) * time.Hour)),
			Active:    i%5 != 0,
		}
		if i%2 == 0 {
			k.LastUsedAt = timestamppb.New(base.Add(time.Duration(i)*time.Hour + 589*time.Millisecond))
			k.ExpiresAt = timestamppb.New(base.AddDate(1, 0, 0))
		}
		resp.Keys = append(resp.Keys, k)
	}
	return resp
}

func benchMarshal(b *testing.B, marshal func(any) ([]byte, error)) {
	msg := proto.Message(benchKeys())
	out, err := marshal(msg)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := marshal(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRESTMarshal(b *testing.B) { benchMarshal(b, render.RESTMarshaler{}.Marshal) }

func BenchmarkRPCMarshal(b *testing.B) { benchMarshal(b, render.RPCJSONCodecs()[0].Marshal) }
