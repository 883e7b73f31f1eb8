package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, jobFixtures) }

// The job market's rows. The auction is fixtures_network_exchange_test.go's
// posted job: posted at tsJoined, it ends at tsAuctionCloses and the
// economy's timer awards it at tsHeartbeat. The direct job is awarded by
// its owner at tsHeartbeat too.
const (
	jobAuction      = "ckx5f0a1b0000qzrmjob000001"
	jobAuctionWon   = "ckx3a0p1a0000qzrmapplctn1"
	jobAuctionHire  = "ckx3c0t4d0003qzrmcontrct4"
	jobDirect       = "ckx5f0a1b0000qzrmjob000003"
	jobDirectWon    = "ckx3a0p4d0003qzrmapplctn4"
	jobDirectHire   = "ckx3c0t5e0004qzrmcontrct5"
	jobApplicantCat = "ckx2u0s3c0002qzrmusercccc3"
	jobOwnerAnn     = "ckx2u0s1a0000qzrmuseraaaa1"
	jobPeerConn     = "ckx5f0a1b0000qzrmconn00001"
)

var (
	tsAuctionCloses = timestamppb.New(time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC))
	tsJobDue        = timestamppb.New(time.Date(2025, 6, 6, 9, 0, 0, 125_000_000, time.UTC)) // tsHeartbeat + the 5 days estimated
)

// peerApplicant is the peer of the connection the jobs were shared with
// (bob@b.example:8443), as the owner's instance names it.
func peerApplicant() *switchboardv1.ContractParty {
	return &switchboardv1.ContractParty{ConnectionId: proto.String(jobPeerConn), Name: "Bob",
		InstanceUrl: proto.String("https://b.example:8443")}
}

// localApplicant is a user of the owner's instance.
func localApplicant() *switchboardv1.ContractParty {
	return &switchboardv1.ContractParty{UserId: proto.String(jobApplicantCat), Name: "Cat \"C\" Díaz"}
}

// fullJobCapability is a capability with every field, its price in its own
// currency (information only: the award pays the application's cents).
func fullJobCapability() *switchboardv1.JobApplicationCapability {
	return &switchboardv1.JobApplicationCapability{TaskType: "technical", Skills: []string{"Go", "PostgreSQL"},
		PricingModel: "hourly", Price: proto.Float64(120.5), Currency: "EUR"}
}

// pendingApplication is an application as its applicant made it: with the
// capability it carries, nothing decided yet.
func pendingApplication() *switchboardv1.JobApplication {
	return &switchboardv1.JobApplication{Id: "ckx3a0p2b0001qzrmapplctn2", JobId: jobDirect, Applicant: localApplicant(),
		Message: "I ported two <billing> jobs & \"more\"", PriceCents: 42000, EtaDays: 5, Capability: fullJobCapability(),
		Status: "pending", CreatedAt: tsJoined, UpdatedAt: tsJoined}
}

// sparseApplication is a local user's application with no message, no
// estimate and no capability for the job's task type.
func sparseApplication() *switchboardv1.JobApplication {
	return &switchboardv1.JobApplication{Id: "ckx3a0p3c0002qzrmapplctn3", JobId: jobDirect, Applicant: localApplicant(),
		PriceCents: 1000, Status: "pending", CreatedAt: tsJoined, UpdatedAt: tsJoined}
}

// auctionApplications are the auction's two applications as its owner
// lists them, cheapest first: each scored at closesAt, the best awarded
// (not the cheapest), the other declined.
func auctionApplications() []*switchboardv1.JobApplication {
	return []*switchboardv1.JobApplication{
		{Id: "ckx3a0p5e0004qzrmapplctn5", JobId: jobAuction, Applicant: localApplicant(), Message: "Happy to help",
			PriceCents: 30000, EtaDays: 10, Capability: &switchboardv1.JobApplicationCapability{TaskType: "technical",
				Skills: []string{"Go"}, PricingModel: "flat"},
			Status: "declined", Reason: proto.String("job \"Go review\" was awarded to another application"), Score: proto.Float64(0.54),
			CreatedAt: tsJoined, UpdatedAt: tsHeartbeat},
		{Id: jobAuctionWon, JobId: jobAuction, Applicant: peerApplicant(), Message: "Go & SQL, <five> days", PriceCents: 42000,
			EtaDays: 5, Capability: fullJobCapability(), Status: "awarded", ContractId: proto.String(jobAuctionHire),
			Score: proto.Float64(0.58), CreatedAt: tsJoined, UpdatedAt: tsHeartbeat},
	}
}

// awardedDirectJob is a direct job its owner awarded, as AwardJob answers
// it: closed, naming the application and the contract.
func awardedDirectJob(full bool) *switchboardv1.Job {
	j := &switchboardv1.Job{Id: jobDirect, Origin: "posted", Title: "Port the billing job", Description: "Move the nightly billing job to Go",
		TaskType: "technical", Urgency: "medium", RequiredSkills: []string{}, Status: "closed", ConnectionIds: []string{},
		CreatedAt: tsJoined, ClosedAt: tsHeartbeat, Mode: "direct", AwardedApplicationId: proto.String(jobDirectWon),
		ContractId: proto.String(jobDirectHire)}
	if full {
		j.Urgency, j.Compensation, j.EstimatedHours = "high", ptr("About 400 USD"), ptr(12.5)
		j.RequiredSkills, j.ConnectionIds = []string{"Go", "PostgreSQL"}, []string{jobPeerConn}
	}
	return j
}

// awardContract is the offer an award makes, as its client reads it: the
// job's title, task type and description, the application's price and,
// when it estimated one, its due date.
func awardContract(full bool) *switchboardv1.Contract {
	c := &switchboardv1.Contract{Id: jobDirectHire, ClientUserId: proto.String(jobOwnerAnn),
		Client:   &switchboardv1.ContractParty{UserId: proto.String(jobOwnerAnn), Name: "Ann Lee"},
		Provider: localApplicant(), TaskType: "technical", Title: "Port the billing job",
		Scope: []string{"Move the nightly billing job to Go"}, PriceCents: 1000, FeeCents: 100, Currency: "USD",
		Status: "offered", PaymentHoldStatus: "held", Role: proto.String("client"), CreatedAt: tsHeartbeat, UpdatedAt: tsHeartbeat}
	if full {
		c.Provider, c.PriceCents, c.FeeCents, c.DueAt = peerApplicant(), 42000, 4200, tsJobDue
	}
	return c
}

// jobFixtures covers JobMarketService and the job market's two calls on
// EconomyPeerService.
func jobFixtures() []fixture {
	fullWon := &switchboardv1.JobApplication{Id: jobDirectWon, JobId: jobDirect, Applicant: peerApplicant(),
		Message: "Go & SQL, <five> days", PriceCents: 42000, EtaDays: 5, Capability: fullJobCapability(), Status: "awarded",
		ContractId: proto.String(jobDirectHire), CreatedAt: tsJoined, UpdatedAt: tsHeartbeat}
	sparseWon := &switchboardv1.JobApplication{Id: jobDirectWon, JobId: jobDirect, Applicant: localApplicant(), PriceCents: 1000,
		Status: "awarded", ContractId: proto.String(jobDirectHire), CreatedAt: tsJoined, UpdatedAt: tsHeartbeat}
	return []fixture{
		single("ApplyToJobResponse", "full", &switchboardv1.ApplyToJobResponse{Application: pendingApplication()}),
		single("ApplyToJobResponse", "sparse", &switchboardv1.ApplyToJobResponse{Application: sparseApplication()}),
		single("AwardJobResponse", "full", &switchboardv1.AwardJobResponse{Job: awardedDirectJob(true), Application: fullWon,
			Contract: awardContract(true)}),
		single("AwardJobResponse", "sparse", &switchboardv1.AwardJobResponse{Job: awardedDirectJob(false), Application: sparseWon,
			Contract: awardContract(false)}),
		// The owner reads every application, and none yet as an empty list;
		// anyone else their own (with none, 404).
		single("ListJobApplicationsResponse", "full", &switchboardv1.ListJobApplicationsResponse{Applications: auctionApplications()}),
		single("ListJobApplicationsResponse", "own", &switchboardv1.ListJobApplicationsResponse{
			Applications: []*switchboardv1.JobApplication{sparseApplication()}}),
		single("ListJobApplicationsResponse", "sparse", &switchboardv1.ListJobApplicationsResponse{Applications: []*switchboardv1.JobApplication{}}),
		// The full answer records the application; the sparse one is a job
		// that takes none: declined, recorded nowhere.
		single("ReceiveJobApplicationResponse", "full", &switchboardv1.ReceiveJobApplicationResponse{
			ApplicationId: "ckx3a0p6f0005qzrmapplctn6", Status: "pending"}),
		single("ReceiveJobApplicationResponse", "sparse", &switchboardv1.ReceiveJobApplicationResponse{Status: "declined"}),
		// An outcome moves a pending application once; a repeat changes nothing.
		single("ReceiveApplicationOutcomeResponse", "full", &switchboardv1.ReceiveApplicationOutcomeResponse{Applied: true}),
		single("ReceiveApplicationOutcomeResponse", "sparse", &switchboardv1.ReceiveApplicationOutcomeResponse{}),
	}
}
