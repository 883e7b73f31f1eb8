package httpapi

import (
	"google.golang.org/protobuf/types/known/structpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, networkExchangeFixtures) }

// networkExchangeFixtures cover what connections exchange besides relays: a
// read project_invite notification with its metadata and an unread bare
// one, patterns published and never published, a posted auction (awarded
// at its end: fixtures_jobs_test.go) and a received direct job, the
// auction as its peers read it while open, a capability with every field
// and a bare one, a match, and the peer routes' answers.
func networkExchangeFixtures() []fixture {
	invite, _ := structpb.NewStruct(map[string]any{"projectId": "p1", "inviteId": "i1", "role": "reviewer"})
	read := &switchboardv1.Notification{
		Id: "ckx5f0a1b0000qzrmnote00001", Type: "project_invite", Title: "Join \"Apollo\"", Body: "As a <reviewer>",
		Metadata: invite, ConnectionId: ptr("ckx5f0a1b0000qzrmconn00001"), FromUserName: "Alice",
		FromUserEmail: "alice@example.com", From: "alice@a.example:8443", ReadAt: tsHeartbeat, CreatedAt: tsJoined,
	}
	bare := &switchboardv1.Notification{
		Id: "ckx5f0a1b0000qzrmnote00002", Type: "task_assigned", Title: "Review", Metadata: &structpb.Struct{},
		FromUserEmail: "alice@example.com", From: "alice@a.example", CreatedAt: tsJoined,
	}
	patterns := &switchboardv1.WorkPatterns{TaskTypes: []string{"research", "review"}, Skills: []string{"Go", "C++"},
		MaxConcurrent: 3, TypicalTurnaroundHours: 1.5, UpdatedAt: tsHeartbeat}
	none := &switchboardv1.WorkPatterns{TaskTypes: []string{}, Skills: []string{}}
	peer := &switchboardv1.PeerPatterns{ConnectionId: "ckx5f0a1b0000qzrmconn00001", Peer: "bob@b.example",
		Patterns: patterns, FetchedAt: tsHeartbeat}
	posted := &switchboardv1.Job{
		Id: "ckx5f0a1b0000qzrmjob000001", Origin: "posted", Title: "Go review", Description: "Review a \"Go\" service",
		TaskType: "technical", Urgency: "high", Compensation: ptr("500 EUR"), RequiredSkills: []string{"Go", "PostgreSQL"},
		EstimatedHours: ptr(6.5), Status: "closed", ConnectionIds: []string{"ckx5f0a1b0000qzrmconn00001"},
		CreatedAt: tsJoined, ClosedAt: tsHeartbeat, Mode: "auction", ClosesAt: tsAuctionCloses, MaxPriceCents: ptr(int32(50000)),
		AwardedApplicationId: ptr(jobAuctionWon), ContractId: ptr(jobAuctionHire),
	}
	received := &switchboardv1.Job{
		Id: "ckx5f0a1b0000qzrmjob000002", Origin: "received", Title: "Slides", Description: "A deck",
		TaskType: "custom", Urgency: "medium", RequiredSkills: []string{}, Status: "open", ConnectionIds: []string{},
		ConnectionId: ptr("ckx5f0a1b0000qzrmconn00001"), From: ptr("alice@a.example"), FromUserName: ptr("Alice"),
		CreatedAt: tsJoined, Mode: "direct",
	}
	full := &switchboardv1.ProviderCapability{
		Id: "ckx5f0a1b0000qzrmcapa00001", TaskType: "technical", Skills: []string{"Go"}, Description: "Backend <reviews>",
		PricingModel: ptr("hourly"), Price: ptr(120.0), Currency: ptr("EUR"), Unit: ptr("hour"), TurnaroundDays: ptr(int32(3)),
		MaxConcurrent: ptr(int32(2)), SampleWorkUrl: ptr("https://example.com/work"), Requirements: ptr("A repo link"),
		CreatedAt: tsJoined,
	}
	plain := &switchboardv1.ProviderCapability{Id: "ckx5f0a1b0000qzrmcapa00002", TaskType: "review", Skills: []string{}, CreatedAt: tsJoined}
	shared := &switchboardv1.SharedJob{Id: "ckx5f0a1b0000qzrmjob000001", Title: "Go review", Description: "Review",
		TaskType: "technical", Urgency: "high", RequiredSkills: []string{"Go"}, EstimatedHours: ptr(6.5), Status: "open", PostedAt: tsJoined,
		Mode: "auction", ClosesAt: tsAuctionCloses, MaxPriceCents: ptr(int32(50000))}
	return []fixture{
		single("SendNotificationResponse", "sent", &switchboardv1.SendNotificationResponse{NotificationId: "ckx5f0a1b0000qzrmnote00003", Delivery: "delivered"}),
		single("SendNotificationResponse", "queued", &switchboardv1.SendNotificationResponse{Delivery: "queued"}),
		single("ListNotificationsResponse", "two", &switchboardv1.ListNotificationsResponse{
			Notifications: []*switchboardv1.Notification{bare, read}, UnreadCount: 1,
			Pagination: &switchboardv1.Pagination{Total: 2, Limit: 50}}),
		single("ListNotificationsResponse", "empty", &switchboardv1.ListNotificationsResponse{
			Pagination: &switchboardv1.Pagination{Limit: 50}}),
		single("ReadNotificationResponse", "read", &switchboardv1.ReadNotificationResponse{Notification: read}),
		single("ReceiveNotificationResponse", "taken", &switchboardv1.ReceiveNotificationResponse{NotificationId: "ckx5f0a1b0000qzrmnote00003"}),
		single("SearchNetworkMentionsResponse", "two", &switchboardv1.SearchNetworkMentionsResponse{Users: []*switchboardv1.NetworkMentionUser{
			{Id: "ckx5f0a1b0000qzrmuser00001", Username: "bob", Name: "Bob", Avatar: ptr("https://example.com/b.png")},
			{Id: "ckx5f0a1b0000qzrmuser00002", Username: "bea", Name: "Bea \"B\""},
		}}),
		single("SearchNetworkMentionsResponse", "empty", &switchboardv1.SearchNetworkMentionsResponse{}),
		single("GetPatternsResponse", "published", &switchboardv1.GetPatternsResponse{Patterns: patterns}),
		single("GetPatternsResponse", "none", &switchboardv1.GetPatternsResponse{Patterns: none}),
		single("UpdatePatternsResponse", "published", &switchboardv1.UpdatePatternsResponse{Patterns: patterns}),
		single("ListPeerPatternsResponse", "one", &switchboardv1.ListPeerPatternsResponse{Peers: []*switchboardv1.PeerPatterns{peer}}),
		single("ListPeerPatternsResponse", "empty", &switchboardv1.ListPeerPatternsResponse{}),
		single("RefreshPeerPatternsResponse", "learned", &switchboardv1.RefreshPeerPatternsResponse{Peer: peer}),
		single("PostJobResponse", "delivered_and_not", &switchboardv1.PostJobResponse{Job: posted, Deliveries: []*switchboardv1.JobDelivery{
			{ConnectionId: "ckx5f0a1b0000qzrmconn00001", Delivered: true, Delivery: "delivered"},
			{ConnectionId: "ckx5f0a1b0000qzrmconn00002", Delivery: "queued"},
			{ConnectionId: "ckx5f0a1b0000qzrmconn00003", Error: ptr("the peer refused it: the user is no longer here")},
		}}),
		single("ListJobsResponse", "two", &switchboardv1.ListJobsResponse{Jobs: []*switchboardv1.Job{received, posted},
			Pagination: &switchboardv1.Pagination{Total: 2, Limit: 50}}),
		single("ListJobsResponse", "empty", &switchboardv1.ListJobsResponse{Pagination: &switchboardv1.Pagination{Limit: 50}}),
		single("CloseJobResponse", "closed", &switchboardv1.CloseJobResponse{Job: posted}),
		single("ReceiveJobResponse", "taken", &switchboardv1.ReceiveJobResponse{JobId: "ckx5f0a1b0000qzrmjob000002"}),
		single("ListSharedJobsResponse", "one", &switchboardv1.ListSharedJobsResponse{Jobs: []*switchboardv1.SharedJob{shared}}),
		single("ListSharedJobsResponse", "empty", &switchboardv1.ListSharedJobsResponse{}),
		single("DeclareCapabilityResponse", "full", &switchboardv1.DeclareCapabilityResponse{Capability: full}),
		single("DeclareCapabilityResponse", "bare", &switchboardv1.DeclareCapabilityResponse{Capability: plain}),
		single("ListProviderCapabilitiesResponse", "two", &switchboardv1.ListProviderCapabilitiesResponse{
			Capabilities: []*switchboardv1.ProviderCapability{full, plain}}),
		single("ListProviderCapabilitiesResponse", "empty", &switchboardv1.ListProviderCapabilitiesResponse{}),
		single("RemoveProviderCapabilityResponse", "removed", &switchboardv1.RemoveProviderCapabilityResponse{}),
		single("MatchJobsResponse", "one", &switchboardv1.MatchJobsResponse{Matches: []*switchboardv1.JobMatch{{
			Job: received, Score: 0.65, MatchedSkills: []string{"Go"}, TaskTypeMatch: false, CapabilityId: "ckx5f0a1b0000qzrmcapa00001"}}}),
		single("MatchJobsResponse", "empty", &switchboardv1.MatchJobsResponse{}),
	}
}
