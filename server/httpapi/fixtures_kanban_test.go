package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, kanbanFixtures) }

var (
	tsKanbanDue      = timestamppb.New(time.Date(2025, 8, 15, 17, 0, 0, 0, time.UTC))
	tsKanbanStart    = timestamppb.New(time.Date(2025, 8, 1, 9, 0, 0, 0, time.UTC))
	tsKanbanReminded = timestamppb.New(time.Date(2025, 8, 15, 16, 30, 0, 0, time.UTC))
	tsKanbanSettled  = timestamppb.New(time.Date(2025, 9, 1, 12, 0, 0, 500_000_000, time.UTC))
)

const (
	kanbanUserID  = "ckx1f0a9z0000qzrmn831i7rn"
	kanbanCardID  = "ckx3k0a1b0000qzrmkancard1"
	kanbanCard2ID = "ckx3k0b2c0001qzrmkancard2"
)

// fullChecklistItem has every field set: a queue review row.
func fullChecklistItem() *switchboardv1.ChecklistItem {
	return &switchboardv1.ChecklistItem{
		Id: "ckx3i0a1b0000qzrmchkitem1", Text: "Review the agent's result", Completed: false, Order: 2,
		Summary: proto.String("Check the draft"), Brief: proto.String("Draft is in <drive>."),
		CardId: kanbanCardID, DueDate: tsKanbanDue,
		SourceType: proto.String("queue_review"), SourceId: proto.String("ckx3q0a1b0000qzrmqueueit1"),
		SourceLabel: proto.String("pending_review"), AssigneeType: proto.String("delegated"),
		AssigneeName: proto.String("Ada Lovelace"), AssigneeId: proto.String("ckx1f0b3k0001qzrm4q2w8e5t"),
		DelegationStatus: proto.String("accepted"), ChildCardId: proto.String(kanbanCard2ID),
		CreatedAt: tsCreated, UpdatedAt: tsUsed,
	}
}

// sparseChecklistItem has only the always-present fields.
func sparseChecklistItem() *switchboardv1.ChecklistItem {
	return &switchboardv1.ChecklistItem{
		Id: "ckx3i0b2c0001qzrmchkitem2", Text: "Sign", Completed: true, Order: 0,
		CardId: kanbanCardID, CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

// fullKanbanCard has every field set, two checklist rows (sparse first, in
// order) and two contact links (full and sparse), with the four-field contact.
func fullKanbanCard() *switchboardv1.KanbanCard {
	return &switchboardv1.KanbanCard{
		Id: kanbanCardID, Title: "Navy contract", Description: proto.String("Renewal, \"phase 2\"."),
		Status: "negotiation", Priority: "urgent", Assignee: "agent", DueDate: tsKanbanDue, Order: 3,
		Checklist: []*switchboardv1.ChecklistItem{sparseChecklistItem(), fullChecklistItem()},
		Contacts: []*switchboardv1.CardContact{{
			Id: "ckx3l0a1b0000qzrmcardlnk1", CardId: kanbanCardID, ContactId: "ckx2c0a1b0000qzrmcontact1",
			Role: proto.String("decision maker"), Involvement: "primary", CanDelegate: true, CreatedAt: tsCreated,
			Contact: &switchboardv1.ContactPreview{
				Id: "ckx2c0a1b0000qzrmcontact1", Name: "Grace Hopper",
				Email: proto.String("grace@navy.example"), Company: proto.String("US Navy"),
			},
		}, {
			Id: "ckx3l0b2c0001qzrmcardlnk2", CardId: kanbanCardID, ContactId: "ckx2c0a2c0001qzrmcontact2",
			Involvement: "related", CreatedAt: tsUsed,
			Contact: &switchboardv1.ContactPreview{Id: "ckx2c0a2c0001qzrmcontact2", Name: "Bob"},
		}},
		CreatedAt: tsCreated, UpdatedAt: tsUsed,

		Summary: proto.String("Two-year renewal"), Brief: proto.String("Price held; scope grows."),
		AssigneeUserId: proto.String("ckx1f0b3k0001qzrm4q2w8e5t"), AssigneeAgentId: proto.String("ckx3a0a1b0000qzrmagentid1"),
		AssignedById: proto.String(kanbanUserID), ReminderOffsetMinutes: proto.Int32(30),
		ReminderFiredAt: tsKanbanReminded, UserId: proto.String(kanbanUserID),

		ProjectId: proto.String("ckx3p0a1b0000qzrmproject1"), WorkspaceId: proto.String("ckx3w0a1b0000qzrmworkspc1"),
		OriginCardId: proto.String("ckx3k0o1b0000qzrmorigcrd1"), OriginUserId: proto.String("ckx1f0b3k0001qzrm4q2w8e5t"),
		SourceRelayId: proto.String("ckx3r0a1b0000qzrmrelayid1"), SharedProjectId: proto.String("ckx3s0a1b0000qzrmshprojt1"),
		TemplateId: proto.String("tpl-sales"), CounterpartyUserId: proto.String("ckx1f0b3k0001qzrm4q2w8e5t"),
		ProjectRole: proto.String("lead"), ParentCardId: proto.String(kanbanCard2ID),
		ParentChecklistItemId: proto.String("ckx3i0a1b0000qzrmchkitem9"), CardRole: proto.String("rollup"),
		RollupCardId: proto.String(kanbanCard2ID), ProjectTaskKey: proto.String("NAVY-12"),
		SourceRunId: proto.String("run-42"), SourceChannel: proto.String("email"),
		DifferenceId: proto.String("diff-7"), UnifiedThreadId: proto.String("thread-9"),

		PaymentHoldId: proto.String("hold_1"), PaymentStatus: proto.String("held"), ProjectPrice: proto.Float64(12500.5),
		CompletionSuggestedBy: proto.String("agent"), CompletionSuggestedAt: tsUsed, SettledAt: tsKanbanSettled,

		CardType: proto.String("deal"), Labels: []string{"navy", "renewal"}, CoverColor: proto.String("#1e90ff"),
		CoverImageUrl: proto.String("https://example.com/covers/navy.png"), PriorityScore: proto.Int32(87),
		StartDate: tsKanbanStart, LastActivityAt: tsUsed, IsArchived: true, PendingReview: true, ItemsAwaitingApproval: 2,

		ExternalCardId: proto.String("ckx5f0a1b0000qzrmcardpeer01"), ExternalInstanceUrl: proto.String("https://b.example"),
		ChangeLog: []*switchboardv1.CardChange{{ExternalCardId: "ckx5f0a1b0000qzrmcardpeer01", NewStatus: "proposal",
			NewPriority: "high", ChangeLog: "Navy renewal: status leads → proposal", From: "bob@b.example", ReceivedAt: tsUsed}},
	}
}

// sparseKanbanCard has only the always-present fields: no labels, no checklist,
// no contacts.
func sparseKanbanCard() *switchboardv1.KanbanCard {
	return &switchboardv1.KanbanCard{
		Id: kanbanCard2ID, Title: "Call Bob", Status: "active", Priority: "medium", Assignee: "human",
		Checklist: []*switchboardv1.ChecklistItem{}, Contacts: []*switchboardv1.CardContact{},
		Labels: []string{}, CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

// kanbanDetail turns a list card into the detail the service answers: the same
// fields, with the seven-field contact (profile) on each link.
func kanbanDetail(c *switchboardv1.KanbanCard, profiles ...*switchboardv1.ContactProfile) *switchboardv1.KanbanCardDetail {
	links := c.GetContacts()
	c = proto.CloneOf(c)
	c.Contacts = nil
	b, err := proto.Marshal(c)
	if err != nil {
		panic(err)
	}
	out := &switchboardv1.KanbanCardDetail{}
	if err := proto.Unmarshal(b, out); err != nil {
		panic(err)
	}
	out.Labels = append([]string{}, c.GetLabels()...)
	out.Contacts = []*switchboardv1.CardContactDetail{}
	for i, l := range links {
		out.Contacts = append(out.Contacts, &switchboardv1.CardContactDetail{
			Id: l.GetId(), CardId: l.GetCardId(), ContactId: l.GetContactId(), Role: l.Role,
			Involvement: l.GetInvolvement(), CanDelegate: l.GetCanDelegate(), CreatedAt: l.GetCreatedAt(),
			Contact: profiles[i],
		})
	}
	return out
}

func fullKanbanDetail() *switchboardv1.KanbanCardDetail {
	return kanbanDetail(fullKanbanCard(), &switchboardv1.ContactProfile{
		Id: "ckx2c0a1b0000qzrmcontact1", Name: "Grace Hopper", Email: proto.String("grace@navy.example"),
		Company: proto.String("US Navy"), Phone: proto.String("+1 555 0100"), Role: proto.String("Rear Admiral"),
		Tags: []string{"vip", "compilers"},
	}, &switchboardv1.ContactProfile{Id: "ckx2c0a2c0001qzrmcontact2", Name: "Bob", Tags: []string{}})
}

func sparseKanbanDetail() *switchboardv1.KanbanCardDetail { return kanbanDetail(sparseKanbanCard()) }

func kanbanEntries() []*switchboardv1.ActivityEntry {
	return []*switchboardv1.ActivityEntry{{
		Id: "ckx3e0a1b0000qzrmactivty1", Action: "card_moved", Actor: "CI runner",
		Summary: `Moved "Navy contract" from proposal to negotiation`, CreatedAt: tsUsed,
		Category: proto.String("board"), CardId: proto.String(kanbanCardID),
	}, {
		Id: "ckx3e0b2c0001qzrmactivty2", Action: "checklist_completed", Actor: "Ada Lovelace",
		Summary: `Ada Lovelace: Checked "Sign" on "Navy contract"`, IsCrossUser: true, CreatedAt: tsCreated,
		Category: proto.String("board"), CardId: proto.String(kanbanCardID),
	}}
}

// kanbanFixtures covers KanbanService.
func kanbanFixtures() []fixture {
	return []fixture{
		single("ListCardsResponse", "full", &switchboardv1.ListCardsResponse{
			Cards:      []*switchboardv1.KanbanCard{fullKanbanCard(), sparseKanbanCard()},
			Pagination: &switchboardv1.Pagination{Total: 12, Limit: 2, Offset: 4, HasMore: true},
		}),
		single("ListCardsResponse", "sparse", &switchboardv1.ListCardsResponse{
			Cards:      []*switchboardv1.KanbanCard{},
			Pagination: &switchboardv1.Pagination{Total: 3, Limit: 50, Offset: 50},
		}),

		single("GetCardResponse", "full", &switchboardv1.GetCardResponse{Card: fullKanbanDetail()}),
		single("GetCardResponse", "sparse", &switchboardv1.GetCardResponse{Card: sparseKanbanDetail()}),
		single("CreateCardResponse", "full", &switchboardv1.CreateCardResponse{Card: fullKanbanDetail()}),
		single("CreateCardResponse", "sparse", &switchboardv1.CreateCardResponse{Card: sparseKanbanDetail()}),
		single("UpdateCardResponse", "full", &switchboardv1.UpdateCardResponse{Card: fullKanbanDetail()}),
		single("UpdateCardResponse", "sparse", &switchboardv1.UpdateCardResponse{Card: sparseKanbanDetail()}),
		single("DeleteCardResponse", "full", &switchboardv1.DeleteCardResponse{Card: fullKanbanDetail()}),
		single("DeleteCardResponse", "sparse", &switchboardv1.DeleteCardResponse{Card: sparseKanbanDetail()}),

		single("UpdateChecklistItemResponse", "full", &switchboardv1.UpdateChecklistItemResponse{
			Item: func() *switchboardv1.ChecklistItem {
				it := fullChecklistItem()
				it.Completed = true
				return it
			}(),
			CardCompleted: true,
		}),
		single("UpdateChecklistItemResponse", "sparse", &switchboardv1.UpdateChecklistItemResponse{Item: sparseChecklistItem()}),

		single("ListCardActivityResponse", "full", &switchboardv1.ListCardActivityResponse{
			Success: true, Data: kanbanEntries(), NextCursor: proto.String("ckx3e0b2c0001qzrmactivty2"),
		}),
		single("ListCardActivityResponse", "sparse", &switchboardv1.ListCardActivityResponse{
			Success: true, Data: []*switchboardv1.ActivityEntry{},
		}),
	}
}
