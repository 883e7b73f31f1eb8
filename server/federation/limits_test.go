package federation_test

import (
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/federation/spoke"
)

// RULINGS "Federation: instances and the platform": more than 50 per sync
// call is 400. The limit is the contract's (max_items, enforced by the gate
// before the handler); the spoke's batches (MaxSync) are that limit, so a
// push never sends a call the hub refuses.
func TestMaxSyncIsTheContracts(t *testing.T) {
	for _, m := range []protoreflect.ProtoMessage{&switchboardv1.SyncAgentsRequest{}, &switchboardv1.SyncCapabilitiesRequest{}} {
		fd := m.ProtoReflect().Descriptor().Fields().Get(0)
		rules, _ := proto.GetExtension(fd.Options(), validate.E_Field).(*validate.FieldRules)
		if got := rules.GetRepeated().GetMaxItems(); got != spoke.MaxSync {
			t.Errorf("%s: the contract's max_items is %d, MaxSync %d", fd.FullName(), got, spoke.MaxSync)
		}
	}
}
