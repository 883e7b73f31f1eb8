package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, contactFixtures) }

var (
	tsContactMatched = timestamppb.New(time.Date(2025, 2, 3, 10, 0, 0, 0, time.UTC))
	tsContactSpoke   = timestamppb.New(time.Date(2025, 4, 5, 16, 45, 30, 250_000_000, time.UTC))
	tsCardDue        = timestamppb.New(time.Date(2025, 7, 1, 17, 0, 0, 0, time.UTC))
)

// fullContact has every field set and two card links, the first fully
// populated (role, canDelegate, a due date) and the second sparse.
func fullContact() *switchboardv1.Contact {
	return &switchboardv1.Contact{
		Id:                  "ckx2c0a1b0000qzrmcontact1",
		Name:                "Grace Hopper",
		UserId:              "ckx1f0a9z0000qzrmn831i7rn",
		Email:               proto.String("grace@navy.example"),
		Phone:               proto.String("+1 555 0100"),
		Company:             proto.String("US Navy"),
		Role:                proto.String("Rear Admiral"),
		PreferredChannel:    proto.String("email"),
		Notes:               proto.String("Met at the \"COBOL\" <summit>.\nFollow up in May."),
		Tags:                []string{"vip", "compilers"},
		Source:              proto.String("import"),
		EnrichedData:        proto.String(`{"linkedin":"gracehopper"}`),
		PlatformUserId:      proto.String("ckx1f0b3k0001qzrm4q2w8e5t"),
		PlatformUserStatus:  proto.String("matched"),
		MatchedAt:           tsContactMatched,
		LastInteractionAt:   tsContactSpoke,
		LastInteractionType: proto.String("call"),
		Cards: []*switchboardv1.ContactCardLink{{
			Id: "ckx2c0l1a0000qzrmcardlnk1", CardId: "ckx2c0k1a0000qzrmkancard1", ContactId: "ckx2c0a1b0000qzrmcontact1",
			Role: proto.String("decision maker"), Involvement: "primary", CanDelegate: true, CreatedAt: tsCreated,
			Card: &switchboardv1.CardPreview{Id: "ckx2c0k1a0000qzrmkancard1", Title: "Navy contract", Status: "negotiation", Priority: "urgent"},
		}, {
			Id: "ckx2c0l2b0001qzrmcardlnk2", CardId: "ckx2c0k2b0001qzrmkancard2", ContactId: "ckx2c0a1b0000qzrmcontact1",
			Involvement: "related", CreatedAt: tsUsed,
			Card: &switchboardv1.CardPreview{Id: "ckx2c0k2b0001qzrmkancard2", Title: "Compiler talk", Status: "active", Priority: "medium"},
		}},
		CreatedAt: tsCreated,
		UpdatedAt: tsUsed,
	}
}

// sparseContact has only the always-present fields: no tags, no cards.
func sparseContact() *switchboardv1.Contact {
	return &switchboardv1.Contact{
		Id: "ckx2c0a2c0001qzrmcontact2", Name: "Bob", UserId: "ckx1f0a9z0000qzrmn831i7rn",
		Tags: []string{}, Cards: []*switchboardv1.ContactCardLink{}, CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

func fullContactDetail() *switchboardv1.ContactDetail {
	return &switchboardv1.ContactDetail{
		Id:                  "ckx2c0a1b0000qzrmcontact1",
		Name:                "Grace Hopper",
		UserId:              "ckx1f0a9z0000qzrmn831i7rn",
		Email:               proto.String("grace@navy.example"),
		Phone:               proto.String("+1 555 0100"),
		Company:             proto.String("US Navy"),
		Role:                proto.String("Rear Admiral"),
		PreferredChannel:    proto.String("email"),
		Notes:               proto.String("Met at the \"COBOL\" <summit>.\nFollow up in May."),
		Tags:                []string{"vip", "compilers"},
		Source:              proto.String("import"),
		EnrichedData:        proto.String(`{"linkedin":"gracehopper"}`),
		PlatformUserId:      proto.String("ckx1f0b3k0001qzrm4q2w8e5t"),
		PlatformUserStatus:  proto.String("matched"),
		MatchedAt:           tsContactMatched,
		LastInteractionAt:   tsContactSpoke,
		LastInteractionType: proto.String("call"),
		Cards: []*switchboardv1.ContactCardLinkDetail{{
			Id: "ckx2c0l1a0000qzrmcardlnk1", CardId: "ckx2c0k1a0000qzrmkancard1", ContactId: "ckx2c0a1b0000qzrmcontact1",
			Role: proto.String("decision maker"), Involvement: "primary", CanDelegate: true, CreatedAt: tsCreated,
			Card: &switchboardv1.CardBrief{
				Id: "ckx2c0k1a0000qzrmkancard1", Title: "Navy contract", Status: "negotiation", Priority: "urgent",
				Assignee: "agent", DueDate: tsCardDue,
			},
		}, {
			Id: "ckx2c0l2b0001qzrmcardlnk2", CardId: "ckx2c0k2b0001qzrmkancard2", ContactId: "ckx2c0a1b0000qzrmcontact1",
			Involvement: "related", CreatedAt: tsUsed,
			// No due date; the assignee is still written.
			Card: &switchboardv1.CardBrief{
				Id: "ckx2c0k2b0001qzrmkancard2", Title: "Compiler talk", Status: "active", Priority: "medium",
				Assignee: "human",
			},
		}},
		CreatedAt: tsCreated,
		UpdatedAt: tsUsed,
	}
}

func sparseContactDetail() *switchboardv1.ContactDetail {
	return &switchboardv1.ContactDetail{
		Id: "ckx2c0a2c0001qzrmcontact2", Name: "Bob", UserId: "ckx1f0a9z0000qzrmn831i7rn",
		Tags: []string{}, Cards: []*switchboardv1.ContactCardLinkDetail{}, CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

// contactFixtures covers ContactService.
func contactFixtures() []fixture {
	return []fixture{
		single("ListContactsResponse", "full", &switchboardv1.ListContactsResponse{
			Contacts:   []*switchboardv1.Contact{sparseContact(), fullContact()},
			Pagination: &switchboardv1.Pagination{Total: 7, Limit: 2, Offset: 2, HasMore: true},
		}),
		single("ListContactsResponse", "sparse", &switchboardv1.ListContactsResponse{
			Contacts:   []*switchboardv1.Contact{},
			Pagination: &switchboardv1.Pagination{Limit: 50},
		}),

		single("GetContactResponse", "full", &switchboardv1.GetContactResponse{Contact: fullContactDetail()}),
		single("GetContactResponse", "sparse", &switchboardv1.GetContactResponse{Contact: sparseContactDetail()}),
		single("CreateContactResponse", "full", &switchboardv1.CreateContactResponse{Contact: func() *switchboardv1.ContactDetail {
			d := fullContactDetail()
			d.Cards = []*switchboardv1.ContactCardLinkDetail{} // a new contact is on no cards
			d.UpdatedAt = tsCreated
			return d
		}()}),
		single("CreateContactResponse", "sparse", &switchboardv1.CreateContactResponse{Contact: sparseContactDetail()}),
		single("UpdateContactResponse", "full", &switchboardv1.UpdateContactResponse{Contact: fullContactDetail()}),
		single("UpdateContactResponse", "sparse", &switchboardv1.UpdateContactResponse{Contact: sparseContactDetail()}),
		single("DeleteContactResponse", "full", &switchboardv1.DeleteContactResponse{Contact: fullContactDetail()}),
		single("DeleteContactResponse", "sparse", &switchboardv1.DeleteContactResponse{Contact: sparseContactDetail()}),
	}
}
