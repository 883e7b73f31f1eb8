package httpapi

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, cardLinkFixtures) }

// cardLinkFixtures cover CardLinkService: a link made, a card's links (and
// none), and a link removed.
func cardLinkFixtures() []fixture {
	link := &switchboardv1.CardLink{Id: "ckx5f0a1b0000qzrmcardlink01", FromCardId: "ckx5f0a1b0000qzrmcardfrom01",
		ToCardId: "ckx5f0a1b0000qzrmcardto0001", LinkType: "blocks",
		CreatedAt: timestamppb.New(time.Date(2025, 5, 8, 9, 30, 0, 250_000_000, time.UTC))}
	return []fixture{
		single("LinkCardsResponse", "full", &switchboardv1.LinkCardsResponse{Link: link}),
		single("ListCardLinksResponse", "full", &switchboardv1.ListCardLinksResponse{Links: []*switchboardv1.CardLink{link}}),
		single("ListCardLinksResponse", "empty", &switchboardv1.ListCardLinksResponse{}),
		single("UnlinkCardsResponse", "full", &switchboardv1.UnlinkCardsResponse{Link: link}),
	}
}
