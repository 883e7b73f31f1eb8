package httpapi

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, boardFixtures) }

// boardFixtures cover BoardCortexService and CronService: a scan (and one
// that found nothing), the digest (and an empty one), an insight applied, a
// cron scan.
func boardFixtures() []fixture {
	at := timestamppb.New(time.Date(2026, 11, 29, 9, 30, 0, 250_000_000, time.UTC))
	target := "ckx5f0a1b0000qzrmcardto0001"
	merge := &switchboardv1.BoardInsight{Id: "ckx5f0a1b0000qzrminsight001", Type: "merge_suggestion", Status: "active",
		Confidence: 0.96, Reason: `"Launch plan" and "launch plans" look like the same card (92% similar titles)`,
		SourceId: "ckx5f0a1b0000qzrmcardfrom01", TargetId: &target, CreatedAt: at, UpdatedAt: at}
	stale := &switchboardv1.BoardInsight{Id: "ckx5f0a1b0000qzrminsight002", Type: "stale_card", Status: "active",
		Confidence: 1, Reason: `"Tax filing" has not been updated for 15 days`, SourceId: "ckx5f0a1b0000qzrmcardstale1",
		CreatedAt: at, UpdatedAt: at}
	applied := &switchboardv1.BoardInsight{Id: merge.Id, Type: merge.Type, Status: "applied", Confidence: merge.Confidence,
		Reason: merge.Reason, SourceId: merge.SourceId, TargetId: &target, CreatedAt: at, UpdatedAt: at}
	ref := &switchboardv1.BoardCardRef{Id: "ckx5f0a1b0000qzrmcardstale1", Title: "Tax filing", Status: "active", Priority: "medium", UpdatedAt: at}
	due := &switchboardv1.BoardCardRef{Id: "ckx5f0a1b0000qzrmcarddue001", Title: "Grant", Status: "planning", Priority: "urgent", DueDate: at, UpdatedAt: at}
	return []fixture{
		single("ScanBoardResponse", "full", &switchboardv1.ScanBoardResponse{Scanned: 12, InsightsCreated: 2,
			Escalated: []string{due.Id}, Insights: []*switchboardv1.BoardInsight{merge, stale}}),
		single("ScanBoardResponse", "empty", &switchboardv1.ScanBoardResponse{Escalated: []string{}}),
		single("GetBoardDigestResponse", "full", &switchboardv1.GetBoardDigestResponse{
			Counts:   map[string]int32{"merge_suggestion": 1, "stale_card": 1, "auto_escalate": 0, "duplicate_tasks": 0, "archive_candidate": 0},
			Insights: []*switchboardv1.BoardInsight{merge, stale}, StaleCards: []*switchboardv1.BoardCardRef{ref},
			EscalatedCards: []*switchboardv1.BoardCardRef{due}}),
		single("GetBoardDigestResponse", "empty", &switchboardv1.GetBoardDigestResponse{Counts: map[string]int32{},
			StaleCards: []*switchboardv1.BoardCardRef{}, EscalatedCards: []*switchboardv1.BoardCardRef{}}),
		single("UpdateBoardInsightResponse", "full", &switchboardv1.UpdateBoardInsightResponse{Insight: applied}),
		single("CortexScanResponse", "full", &switchboardv1.CortexScanResponse{Success: true, Scanned: 1,
			Results: []*switchboardv1.CronScanResult{{UserId: "ckx5f0a1b0000qzrmuser00001", UserName: "Ann", CardCount: 12,
				InsightsFound: 2, Details: map[string]int32{"merge_suggestion": 1, "stale_card": 1}}}}),
		single("CortexScanResponse", "empty", &switchboardv1.CortexScanResponse{Success: true, Results: []*switchboardv1.CronScanResult{}}),
	}
}
