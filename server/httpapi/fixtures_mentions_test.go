package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, mentionFixtures) }

func mentions(variant string, m *switchboardv1.ListMentionsResponse) fixture {
	return fixture{message: "ListMentionsResponse", variant: variant, msg: m, restBody: m.GetResults(), restField: "results"}
}

// mentionFixtures cover GET /api/chat/mentions: the REST form is the bare
// array, with null for an absent avatar, subtitle or memberCount.
func mentionFixtures() []fixture {
	return []fixture{
		mentions("full", &switchboardv1.ListMentionsResponse{Results: []*switchboardv1.Mention{
			{Id: "ckx1f0b3k0001qzrm4q2w8e5t", Name: "Bob", Avatar: proto.String("https://example.com/avatars/bob.png"),
				Subtitle: proto.String("@bob"), Type: "person"},
			{Id: "ckx2c0a1b0000qzrmcontact1", Name: "Grace Hopper", Subtitle: proto.String("US Navy"), Type: "person"},
			{Id: "ckx2c0a2c0001qzrmcontact2", Name: "Charles Babbage", Type: "person"},
		}}),
		mentions("team", &switchboardv1.ListMentionsResponse{Results: []*switchboardv1.Mention{
			{Id: "ckx1f0e8w0004qzrm2b6n9c3d", Name: "Core team", Avatar: proto.String("https://example.com/avatars/core.png"),
				Subtitle: proto.String("@core-team"), Type: "team", MemberCount: proto.Int32(4)},
		}}),
		mentions("command", &switchboardv1.ListMentionsResponse{Results: []*switchboardv1.Mention{
			{Id: "dispatch_queue", Name: "dispatch_queue", Subtitle: proto.String("Add a task to the queue (title, type)"), Type: "command"},
		}}),
		mentions("sparse", &switchboardv1.ListMentionsResponse{}),
	}
}
