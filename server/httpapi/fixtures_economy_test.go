package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, economyFixtures) }

// The economy's instants: due a month after tsCreated, delivered and closed
// before tsUsed, the review window 14 days after the close.
var (
	tsContractDue      = timestamppb.New(time.Date(2025, 2, 1, 17, 0, 0, 0, time.UTC))
	tsContractDone     = timestamppb.New(time.Date(2025, 1, 20, 8, 15, 0, 0, time.UTC))
	tsContractClosed   = timestamppb.New(time.Date(2025, 1, 28, 12, 0, 0, 0, time.UTC))
	tsReviewWindowEnds = timestamppb.New(time.Date(2025, 2, 11, 12, 0, 0, 0, time.UTC))
)

// fullContract is a contract with a connection's peer, seen by its client
// after a dispute split 60/40: every field set. 60 percent of 125,000 is a
// share of 75,000, less its fee of 7,500; 50,000 goes back to the client.
func fullContract() *switchboardv1.Contract {
	return &switchboardv1.Contract{
		Id: "ckx3c0t1a0000qzrmcontrct1", ProjectId: proto.String("ckx2p0r2b0001qzrmprojectb2"),
		ClientUserId: proto.String("ckx2u0s1a0000qzrmuseraaaa1"),
		Client:       &switchboardv1.ContractParty{UserId: proto.String("ckx2u0s1a0000qzrmuseraaaa1"), Name: "Ann Lee"},
		Provider: &switchboardv1.ContractParty{ConnectionId: proto.String("ckx2c0n1a0000qzrmconnectn1"), Name: "Pat \"Q\" <Ríos>",
			InstanceUrl: proto.String("https://peer.example.com")},
		TaskType: "research", Title: "Market scan & \"summary\"", Scope: []string{"Five competitors", "One-page summary"},
		PriceCents: 125000, FeeCents: 12500, Currency: "EUR", DueAt: tsContractDue, Status: "closed",
		PaymentHoldStatus: "captured", RefundedCents: 50000, ProviderEarnedCents: 67500, Role: proto.String("client"),
		OriginContractId: proto.String("ckx3c0t9z0009qzrmpeercnt9"), DisputeReason: proto.String("Only three competitors <delivered>"),
		DisputeOutcome: proto.String("split"), ProviderPercent: proto.Int32(60), DeliveredAt: tsContractDone,
		ClosedAt: tsContractClosed, ReviewWindowEndsAt: tsReviewWindowEnds, CreatedAt: tsCreated, UpdatedAt: tsUsed,
	}
}

// sparseContract is a fresh offer to a local user, seen by the provider:
// nothing optional set.
func sparseContract() *switchboardv1.Contract {
	return &switchboardv1.Contract{
		Id: "ckx3c0t2b0001qzrmcontrct2", Client: &switchboardv1.ContractParty{Name: "Ann Lee"},
		Provider: &switchboardv1.ContractParty{UserId: proto.String("ckx2u0s2b0001qzrmuserbbbb2"), Name: "Bob Ray"},
		TaskType: "writing", Title: "Notes", PriceCents: 1000, FeeCents: 100, Currency: "USD", Status: "offered",
		PaymentHoldStatus: "held", Role: proto.String("provider"), CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

// adminContract is a dispute as the instance admin reads it: no side, so
// no role.
func adminContract() *switchboardv1.Contract {
	c := sparseContract()
	c.Id, c.Role, c.Status, c.PaymentHoldStatus = "ckx3c0t3c0002qzrmcontrct3", nil, "disputed", "frozen"
	c.ProjectId, c.ClientUserId = proto.String("ckx2p0r1a0000qzrmprojecta1"), proto.String("ckx2u0s1a0000qzrmuseraaaa1")
	c.Client.UserId = c.ClientUserId
	c.DisputeReason, c.DeliveredAt = proto.String("Late and incomplete"), tsContractDone
	return c
}

func fullContractEntry() *switchboardv1.ContractEntry {
	return &switchboardv1.ContractEntry{
		Id: "ckx3e0n1a0000qzrmentryaa1", Kind: "deliver", By: proto.String("provider"), Text: proto.String("Here it is: <b>v1</b>"),
		Url: proto.String("https://peer.example.com/files/scan.pdf"), DocumentId: proto.String("ckx2d0c1a0000qzrmdocumnt1"),
		Ref: proto.String("1"), CreatedAt: tsContractDone,
	}
}

// sparseContractEntry is the timer's move: by nobody, with no text.
func sparseContractEntry() *switchboardv1.ContractEntry {
	return &switchboardv1.ContractEntry{Id: "ckx3e0n2b0001qzrmentrybb2", Kind: "expire", CreatedAt: tsContractClosed}
}

func fullContractReview() *switchboardv1.ContractReview {
	return &switchboardv1.ContractReview{
		Id: "ckx3r0v1a0000qzrmreviewa1", ContractId: "ckx3c0t1a0000qzrmcontrct1", By: "client", Overall: 4, Communication: 5,
		Quality: 3, Timeliness: 4, Text: proto.String("Good \"scan\", thin <summary>"), Visibility: "public", CreatedAt: tsContractClosed,
	}
}

// sparseContractReview is the other side's review whose author hid its
// text: the scores only.
func sparseContractReview() *switchboardv1.ContractReview {
	return &switchboardv1.ContractReview{
		Id: "ckx3r0v2b0001qzrmreviewb2", ContractId: "ckx3c0t1a0000qzrmcontrct1", By: "provider", Overall: 5, Communication: 5,
		Quality: 5, Timeliness: 5, Visibility: "hidden", CreatedAt: tsUsed,
	}
}

// economyFixtures covers EconomyService, EconomyAdminService and
// EconomyPeerService.
func economyFixtures() []fixture {
	return append(economyLists(), moveFixtures()...)
}

// moveFixtures are the answers of the contract's moves: each the contract
// after the move, one message per move.
func moveFixtures() []fixture {
	var out []fixture
	for _, m := range []struct {
		name string
		wrap func(*switchboardv1.Contract) proto.Message
	}{
		{"AcceptContractResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.AcceptContractResponse{Contract: c}
		}},
		{"DeclineContractResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.DeclineContractResponse{Contract: c}
		}},
		{"WithdrawContractResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.WithdrawContractResponse{Contract: c}
		}},
		{"DeliverContractResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.DeliverContractResponse{Contract: c}
		}},
		{"CloseContractResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.CloseContractResponse{Contract: c}
		}},
		{"DisputeContractResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.DisputeContractResponse{Contract: c}
		}},
		{"PostContractUpdateResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.PostContractUpdateResponse{Contract: c}
		}},
		{"AskContractQuestionResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.AskContractQuestionResponse{Contract: c}
		}},
		{"ProposeContractScopeResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.ProposeContractScopeResponse{Contract: c}
		}},
		{"AcceptContractScopeResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.AcceptContractScopeResponse{Contract: c}
		}},
		{"DeclineContractScopeResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.DeclineContractScopeResponse{Contract: c}
		}},
		{"SuggestCloseContractResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.SuggestCloseContractResponse{Contract: c}
		}},
		{"ReviewContractResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.ReviewContractResponse{Contract: c}
		}},
		{"ResolveDisputeResponse", func(c *switchboardv1.Contract) proto.Message {
			return &switchboardv1.ResolveDisputeResponse{Contract: c}
		}},
	} {
		out = append(out, single(m.name, "full", m.wrap(fullContract())), single(m.name, "sparse", m.wrap(sparseContract())))
	}
	return out
}

func economyLists() []fixture {
	page := &switchboardv1.Pagination{Total: 3, Limit: 2, HasMore: true}
	empty := &switchboardv1.Pagination{Limit: 50}
	return []fixture{
		single("HireProviderResponse", "full", &switchboardv1.HireProviderResponse{Contract: fullContract()}),
		single("HireProviderResponse", "sparse", &switchboardv1.HireProviderResponse{Contract: sparseContract()}),
		single("ListContractsResponse", "full", &switchboardv1.ListContractsResponse{
			Contracts: []*switchboardv1.Contract{fullContract(), sparseContract()}, Pagination: page}),
		single("ListContractsResponse", "sparse", &switchboardv1.ListContractsResponse{Contracts: []*switchboardv1.Contract{}, Pagination: empty}),
		single("GetContractResponse", "full", &switchboardv1.GetContractResponse{Contract: fullContract(),
			Thread: []*switchboardv1.ContractEntry{fullContractEntry(), sparseContractEntry()},
			Amendments: []*switchboardv1.ContractAmendment{
				{N: 1, Item: "A sixth competitor", PriceCents: 15000, Status: "accepted", CreatedAt: tsCreated},
				{N: 2, Item: "Slides <too>", Status: "proposed", CreatedAt: tsUsed},
			},
			Reviews: []*switchboardv1.ContractReview{fullContractReview(), sparseContractReview()}, CounterpartReviewed: true}),
		single("GetContractResponse", "sparse", &switchboardv1.GetContractResponse{Contract: sparseContract(),
			Thread: []*switchboardv1.ContractEntry{}, Amendments: []*switchboardv1.ContractAmendment{}, Reviews: []*switchboardv1.ContractReview{}}),
		single("SetReviewVisibilityResponse", "full", &switchboardv1.SetReviewVisibilityResponse{Review: fullContractReview()}),
		single("SetReviewVisibilityResponse", "hidden", &switchboardv1.SetReviewVisibilityResponse{Review: sparseContractReview()}),
		single("FindProvidersResponse", "full", &switchboardv1.FindProvidersResponse{Providers: []*switchboardv1.ProviderMatch{
			{Provider: &switchboardv1.ContractParty{UserId: proto.String("ckx2u0s2b0001qzrmuserbbbb2"), Name: "Bob Ray"},
				CapabilityId: "ckx2v0c1a0000qzrmcapablty1", TaskType: "research", PriceCents: proto.Int32(9000), Currency: proto.String("USD"),
				PricingModel: "flat", Score: 0.8125, PriceFit: 0.25},
			// A peer publishes no price: its fit is neutral.
			{Provider: &switchboardv1.ContractParty{ConnectionId: proto.String("ckx2c0n1a0000qzrmconnectn1"), Name: "Pat \"Q\" <Ríos>",
				InstanceUrl: proto.String("https://peer.example.com")}, TaskType: "research", Score: 0.5, PriceFit: 0.5},
		}}),
		single("FindProvidersResponse", "sparse", &switchboardv1.FindProvidersResponse{Providers: []*switchboardv1.ProviderMatch{}}),
		single("ListEconomyLedgerResponse", "full", &switchboardv1.ListEconomyLedgerResponse{
			Rows: []*switchboardv1.EconomyLedgerRow{
				{Id: "ckx3l0g1a0000qzrmledgera1", ContractId: "ckx3c0t1a0000qzrmcontrct1", Kind: "refund", AmountCents: 50000,
					Currency: "EUR", CreatedAt: tsContractClosed},
				{Id: "ckx3l0g2b0001qzrmledgerb2", ContractId: "ckx3c0t1a0000qzrmcontrct1", Kind: "hold", AmountCents: -125000,
					Currency: "EUR", CreatedAt: tsCreated},
			},
			Pagination: page,
			Totals: []*switchboardv1.EconomyEarnings{{Currency: "EUR", EngagementCents: 67500, StoreCents: 1250},
				{Currency: "USD", StoreCents: 990}},
		}),
		single("ListEconomyLedgerResponse", "sparse", &switchboardv1.ListEconomyLedgerResponse{Rows: []*switchboardv1.EconomyLedgerRow{},
			Pagination: empty, Totals: []*switchboardv1.EconomyEarnings{}}),
		single("ListDisputesResponse", "full", &switchboardv1.ListDisputesResponse{Disputes: []*switchboardv1.Contract{adminContract()}, Pagination: page}),
		single("ListDisputesResponse", "sparse", &switchboardv1.ListDisputesResponse{Disputes: []*switchboardv1.Contract{}, Pagination: empty}),
		single("ReceiveContractMoveResponse", "applied", &switchboardv1.ReceiveContractMoveResponse{Applied: true, Status: "active"}),
		// A late or repeated move changes nothing.
		single("ReceiveContractMoveResponse", "ignored", &switchboardv1.ReceiveContractMoveResponse{Status: "closed"}),
	}
}
