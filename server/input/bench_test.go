package input

import (
	"testing"

	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// benchCard is a card create with the fields an agent typically sends, three
// of which name a vocabulary.
func benchCard() *switchboardv1.CreateCardRequest {
	return &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{
		Title: proto.String("Prepare the launch"), Description: proto.String("Brief, budget and a date"),
		Status: proto.String("planning"), Priority: proto.String("high"), Assignee: proto.String("agent"),
		Labels:    []string{"launch", "q3"},
		Checklist: []*switchboardv1.ChecklistItemInput{{Text: "brief"}, {Text: "budget"}},
	}}
}

// BenchmarkCheck is the whole boundary check of one request; its baseline,
// BenchmarkCheckBaseline, is the same check without the vocabulary rule
// (the text walk and protovalidate), so the rule's cost reads as a ratio.
func BenchmarkCheck(b *testing.B) {
	m := benchCard()
	for b.Loop() {
		if err := Check(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckBaseline(b *testing.B) {
	m := benchCard()
	for b.Loop() {
		if err := walkStrings(m.ProtoReflect(), "", textRule); err != nil {
			b.Fatal(err)
		}
		if err := validator().Validate(m); err != nil {
			b.Fatal(err)
		}
	}
}
