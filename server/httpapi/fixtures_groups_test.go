package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, groupFixtures) }

// tsInviteEnds is seven days after tsCreated: when an invite made then expires.
var tsInviteEnds = timestamppb.New(time.Date(2025, 1, 9, 3, 4, 5, 0, time.UTC))

// fullTeam is a self-hosted team seen by its owner: every field set.
func fullTeam() *switchboardv1.Team {
	return &switchboardv1.Team{
		Id: "ckx2t0e1a0000qzrmteamaaaa1", Name: "Ops \"Night\" <crew>", Handle: "ops-night-crew",
		Description: proto.String("Who keeps the lights on"), AvatarUrl: proto.String("https://cdn.example.com/ops.png"),
		Visibility: "network", OriginInstanceUrl: proto.String("https://ops.example.com"), IsSelfHosted: true,
		OwnerId: "ckx2u0s1a0000qzrmuseraaaa1", Role: proto.String("owner"), MemberCount: 3,
		CreatedAt: tsCreated, UpdatedAt: tsUsed,
	}
}

// sparseTeam is a platform team read by a member: nothing optional set.
func sparseTeam() *switchboardv1.Team {
	return &switchboardv1.Team{
		Id: "ckx2t0e2b0001qzrmteamaaaa2", Name: "Core", Handle: "core", Visibility: "public",
		OwnerId: "ckx2u0s1a0000qzrmuseraaaa1", MemberCount: 1, CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

func fullTeamMember() *switchboardv1.TeamMember {
	return &switchboardv1.TeamMember{
		MemberId: "ckx2u0s1a0000qzrmuseraaaa1", UserId: proto.String("ckx2u0s1a0000qzrmuseraaaa1"),
		ConnectionId: proto.String("ckx2c0n1a0000qzrmconnectn1"), Name: "Ann Lee", Username: proto.String("ann"),
		Avatar: proto.String("https://cdn.example.com/ann.png"), InstanceUrl: proto.String("https://ann.example.com"),
		Role: "admin", JoinedAt: tsCreated,
	}
}

func sparseTeamMember() *switchboardv1.TeamMember {
	return &switchboardv1.TeamMember{MemberId: "ckx2c0n1a0000qzrmconnectn1", Name: "", Role: "member", JoinedAt: tsCreated}
}

func fullTeamInvite() *switchboardv1.TeamInvite {
	return &switchboardv1.TeamInvite{
		Id: "ckx2i0v1a0000qzrminvitea1", TeamId: "ckx2t0e1a0000qzrmteamaaaa1", Role: "admin",
		Message: proto.String("Join us for the night shift"), Email: proto.String("bob@example.com"),
		UserId: proto.String("ckx2u0s2b0001qzrmuserbbbb2"), ConnectionId: proto.String("ckx2c0n1a0000qzrmconnectn1"),
		Status: "accepted", InvitedBy: "ckx2u0s1a0000qzrmuseraaaa1", ExpiresAt: tsInviteEnds, AnsweredAt: tsUsed,
		RelayId: proto.String("ckx2r0l1a0000qzrmrelayaaa1"), CreatedAt: tsCreated,
	}
}

func sparseTeamInvite() *switchboardv1.TeamInvite {
	return &switchboardv1.TeamInvite{
		Id: "ckx2i0v2b0001qzrminviteb2", TeamId: "ckx2t0e1a0000qzrmteamaaaa1", Role: "member", Status: "pending",
		InvitedBy: "ckx2u0s1a0000qzrmuseraaaa1", ExpiresAt: tsInviteEnds, CreatedAt: tsCreated,
	}
}

func fullSubscription() *switchboardv1.TeamSubscription {
	return &switchboardv1.TeamSubscription{Plan: "pro", Status: "past_due", Seats: 12, ExtraSeats: 2, AmountCents: 9700,
		Currency: "USD", CurrentPeriodEnd: tsInviteEnds, PastDueSince: tsUsed}
}

// fullProject is a team project seen by its lead: every field set.
func fullProject() *switchboardv1.Project {
	return &switchboardv1.Project{
		Id: "ckx2p0r1a0000qzrmprojecta1", Name: "Launch \"v2\" <beta>", Description: proto.String("Everything for the launch"),
		TeamId: proto.String("ckx2t0e1a0000qzrmteamaaaa1"), Color: "#6366F1", Visibility: "team", Status: "active",
		Kind: "standard", LeadId: "ckx2u0s1a0000qzrmuseraaaa1", Role: proto.String("lead"), MemberCount: 4,
		CreatedAt: tsCreated, UpdatedAt: tsUsed,
	}
}

// sparseProject is a public project read by someone outside it.
func sparseProject() *switchboardv1.Project {
	return &switchboardv1.Project{
		Id: "ckx2p0r2b0001qzrmprojectb2", Name: "Notes", Color: "#00AA55", Visibility: "public", Status: "closed",
		Kind: "engagement", LeadId: "ckx2u0s1a0000qzrmuseraaaa1", MemberCount: 1, CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

func fullProjectMember() *switchboardv1.ProjectMember {
	return &switchboardv1.ProjectMember{
		MemberId: "ckx2u0s2b0001qzrmuserbbbb2", UserId: proto.String("ckx2u0s2b0001qzrmuserbbbb2"),
		ConnectionId: proto.String("ckx2c0n1a0000qzrmconnectn1"), Name: "Bob Ray", Username: proto.String("bob"),
		Avatar: proto.String("https://cdn.example.com/bob.png"), InstanceUrl: proto.String("https://bob.example.com"),
		Role: "contributor", Via: "team", JoinedAt: tsCreated,
	}
}

func sparseProjectMember() *switchboardv1.ProjectMember {
	return &switchboardv1.ProjectMember{MemberId: "ckx2c0n1a0000qzrmconnectn1", Role: "observer", Via: "direct", JoinedAt: tsCreated}
}

func fullProjectInvite() *switchboardv1.ProjectInvite {
	return &switchboardv1.ProjectInvite{
		Id: "ckx2i0v3c0002qzrminvitec3", ProjectId: "ckx2p0r1a0000qzrmprojecta1", ProjectName: "Launch \"v2\" <beta>",
		Role: "reviewer", UserId: proto.String("ckx2u0s2b0001qzrmuserbbbb2"), Email: proto.String("bob@example.com"),
		ConnectionId: proto.String("ckx2c0n1a0000qzrmconnectn1"), Status: "declined", InvitedBy: "ckx2u0s1a0000qzrmuseraaaa1",
		Message: proto.String("Review the copy?"), QueueItemId: proto.String("ckx2q0u1a0000qzrmqueueitm1"),
		RelayId: proto.String("ckx2r0l1a0000qzrmrelayaaa1"), AnsweredAt: tsUsed, CreatedAt: tsCreated,
	}
}

func sparseProjectInvite() *switchboardv1.ProjectInvite {
	return &switchboardv1.ProjectInvite{
		Id: "ckx2i0v4d0003qzrminvited4", ProjectId: "ckx2p0r1a0000qzrmprojecta1", ProjectName: "Notes", Role: "contributor",
		Status: "pending", InvitedBy: "ckx2u0s1a0000qzrmuseraaaa1", CreatedAt: tsCreated,
	}
}

// groupFixtures covers TeamService and ProjectService.
func groupFixtures() []fixture {
	page := &switchboardv1.Pagination{Total: 3, Limit: 2, HasMore: true}
	empty := &switchboardv1.Pagination{Limit: 50}
	return []fixture{
		single("CreateTeamResponse", "full", &switchboardv1.CreateTeamResponse{Team: fullTeam()}),
		single("CreateTeamResponse", "sparse", &switchboardv1.CreateTeamResponse{Team: sparseTeam()}),
		single("ListTeamsResponse", "full", &switchboardv1.ListTeamsResponse{Teams: []*switchboardv1.Team{fullTeam(), sparseTeam()}, Pagination: page}),
		single("ListTeamsResponse", "sparse", &switchboardv1.ListTeamsResponse{Teams: []*switchboardv1.Team{}, Pagination: empty}),
		single("GetTeamResponse", "full", &switchboardv1.GetTeamResponse{Team: fullTeam(),
			Members:  []*switchboardv1.TeamMember{fullTeamMember(), sparseTeamMember()},
			Projects: []*switchboardv1.Project{fullProject()}, Subscription: fullSubscription()}),
		single("GetTeamResponse", "sparse", &switchboardv1.GetTeamResponse{Team: sparseTeam(),
			Members: []*switchboardv1.TeamMember{sparseTeamMember()}, Projects: []*switchboardv1.Project{}}),
		single("SubscribeTeamResponse", "full", &switchboardv1.SubscribeTeamResponse{Team: fullTeam(), Subscription: fullSubscription()}),
		single("SubscribeTeamResponse", "starter", &switchboardv1.SubscribeTeamResponse{Team: sparseTeam(),
			Subscription: &switchboardv1.TeamSubscription{Plan: "starter", Status: "active", Seats: 5, AmountCents: 2900,
				Currency: "USD", CurrentPeriodEnd: tsInviteEnds}}),
		single("UpdateTeamResponse", "full", &switchboardv1.UpdateTeamResponse{Team: fullTeam()}),
		single("UpdateTeamResponse", "sparse", &switchboardv1.UpdateTeamResponse{Team: sparseTeam()}),
		single("DeleteTeamResponse", "full", &switchboardv1.DeleteTeamResponse{Team: fullTeam()}),
		single("DeleteTeamResponse", "sparse", &switchboardv1.DeleteTeamResponse{Team: sparseTeam()}),
		single("AddTeamMemberResponse", "full", &switchboardv1.AddTeamMemberResponse{Member: fullTeamMember()}),
		single("AddTeamMemberResponse", "sparse", &switchboardv1.AddTeamMemberResponse{Member: sparseTeamMember()}),
		single("RemoveTeamMemberResponse", "full", &switchboardv1.RemoveTeamMemberResponse{Member: fullTeamMember()}),
		single("RemoveTeamMemberResponse", "sparse", &switchboardv1.RemoveTeamMemberResponse{Member: sparseTeamMember()}),
		single("CreateTeamInviteResponse", "full", &switchboardv1.CreateTeamInviteResponse{InviteId: "ckx2i0v2b0001qzrminviteb2",
			Token: "x5VXbU0d2hF3Ck6q3d8a2Wv1sEo9nXh4KqJm0R7tYpA", Url: "https://ops.example.com/#/invite/x5VXbU0d2hF3Ck6q3d8a2Wv1sEo9nXh4KqJm0R7tYpA",
			ExpiresAt: tsInviteEnds, Invite: sparseTeamInvite()}),
		single("ListTeamInvitesResponse", "full", &switchboardv1.ListTeamInvitesResponse{Invites: []*switchboardv1.TeamInvite{fullTeamInvite(), sparseTeamInvite()}}),
		single("ListTeamInvitesResponse", "sparse", &switchboardv1.ListTeamInvitesResponse{Invites: []*switchboardv1.TeamInvite{}}),
		single("PreviewTeamInviteResponse", "full", &switchboardv1.PreviewTeamInviteResponse{TeamName: "Ops \"Night\" <crew>",
			TeamHandle: "ops-night-crew", InviterName: "Ann Lee", Role: "admin", Message: proto.String("Join us"), ExpiresAt: tsInviteEnds}),
		single("PreviewTeamInviteResponse", "sparse", &switchboardv1.PreviewTeamInviteResponse{TeamName: "Core", TeamHandle: "core",
			InviterName: "Ann Lee", Role: "member", ExpiresAt: tsInviteEnds}),
		single("AnswerTeamInviteResponse", "full", &switchboardv1.AnswerTeamInviteResponse{Invite: fullTeamInvite(), Team: fullTeam()}),
		single("AnswerTeamInviteResponse", "sparse", &switchboardv1.AnswerTeamInviteResponse{Invite: sparseTeamInvite()}),
		single("AssignTeamProjectResponse", "full", &switchboardv1.AssignTeamProjectResponse{Project: fullProject(), Added: 3}),
		single("AssignTeamProjectResponse", "sparse", &switchboardv1.AssignTeamProjectResponse{Project: sparseProject()}),
		single("ListTeamProjectsResponse", "full", &switchboardv1.ListTeamProjectsResponse{Projects: []*switchboardv1.Project{fullProject(), sparseProject()}}),
		single("ListTeamProjectsResponse", "sparse", &switchboardv1.ListTeamProjectsResponse{Projects: []*switchboardv1.Project{}}),
		single("UnassignTeamProjectResponse", "full", &switchboardv1.UnassignTeamProjectResponse{Project: fullProject(), Removed: 2}),
		single("UnassignTeamProjectResponse", "sparse", &switchboardv1.UnassignTeamProjectResponse{Project: sparseProject()}),
		single("CreateProjectResponse", "full", &switchboardv1.CreateProjectResponse{Project: fullProject()}),
		single("CreateProjectResponse", "sparse", &switchboardv1.CreateProjectResponse{Project: sparseProject()}),
		single("ListProjectsResponse", "full", &switchboardv1.ListProjectsResponse{Projects: []*switchboardv1.Project{fullProject(), sparseProject()}, Pagination: page}),
		single("ListProjectsResponse", "sparse", &switchboardv1.ListProjectsResponse{Projects: []*switchboardv1.Project{}, Pagination: empty}),
		single("GetProjectResponse", "full", &switchboardv1.GetProjectResponse{Project: fullProject(),
			Members: []*switchboardv1.ProjectMember{fullProjectMember(), sparseProjectMember()},
			Cards:   []*switchboardv1.KanbanCard{fullKanbanCard(), sparseKanbanCard()},
			Invites: []*switchboardv1.ProjectInvite{fullProjectInvite(), sparseProjectInvite()}}),
		single("GetProjectResponse", "sparse", &switchboardv1.GetProjectResponse{Project: sparseProject(),
			Members: []*switchboardv1.ProjectMember{sparseProjectMember()}, Cards: []*switchboardv1.KanbanCard{},
			Invites: []*switchboardv1.ProjectInvite{}}),
		single("UpdateProjectResponse", "full", &switchboardv1.UpdateProjectResponse{Project: fullProject()}),
		single("UpdateProjectResponse", "sparse", &switchboardv1.UpdateProjectResponse{Project: sparseProject()}),
		single("InviteToProjectResponse", "full", &switchboardv1.InviteToProjectResponse{Invite: fullProjectInvite()}),
		single("InviteToProjectResponse", "sparse", &switchboardv1.InviteToProjectResponse{Invite: sparseProjectInvite()}),
		single("ListProjectInvitesResponse", "full", &switchboardv1.ListProjectInvitesResponse{Invites: []*switchboardv1.ProjectInvite{fullProjectInvite(), sparseProjectInvite()}}),
		single("ListProjectInvitesResponse", "sparse", &switchboardv1.ListProjectInvitesResponse{Invites: []*switchboardv1.ProjectInvite{}}),
		single("AnswerProjectInviteResponse", "full", &switchboardv1.AnswerProjectInviteResponse{Invite: fullProjectInvite(), Project: fullProject()}),
		single("AnswerProjectInviteResponse", "sparse", &switchboardv1.AnswerProjectInviteResponse{Invite: sparseProjectInvite()}),
		single("AddProjectMemberResponse", "full", &switchboardv1.AddProjectMemberResponse{Member: fullProjectMember()}),
		single("AddProjectMemberResponse", "sparse", &switchboardv1.AddProjectMemberResponse{Member: sparseProjectMember()}),
		single("RemoveProjectMemberResponse", "full", &switchboardv1.RemoveProjectMemberResponse{Member: fullProjectMember()}),
		single("RemoveProjectMemberResponse", "sparse", &switchboardv1.RemoveProjectMemberResponse{Member: sparseProjectMember()}),
	}
}
