package main

import (
	"flag"
	"fmt"
	"runtime"
	"syscall"
	"time"

	"github.com/switchboard-hq/switchboard/server/board/rules"
)

// cortexMain is `go run ./bench cortex`: the CPU of a full board scan's
// analysis (server/board/rules.Scan) over a synthetic board of 1,000 cards
// with 5,000 checklist items, against the naive all-pairs edit distance over
// the same texts (the baseline), measured in the same run.
func cortexMain(args []string) error {
	fs := flag.NewFlagSet("cortex", flag.ContinueOnError)
	cards := fs.Int("cards", 1000, "cards on the board")
	per := fs.Int("items", 5, "checklist items per card")
	rounds := fs.Int("rounds", 5, "scans measured (the baseline runs once)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	board := rules.SyntheticBoard(*cards, *per, now)
	titles, items := rules.Texts(board)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	runtime.GC()
	start := cpu()
	var r rules.Result
	for range *rounds {
		r = rules.Scan(board, now)
	}
	scan := (cpu() - start) / time.Duration(*rounds)
	runtime.GC()
	start = cpu()
	naive := len(rules.NaivePairs(titles, rules.TitlePercent)) + len(rules.NaivePairs(items, rules.ChecklistPercent))
	base := cpu() - start
	fast := len(rules.SimilarPairs(titles, rules.TitlePercent)) + len(rules.SimilarPairs(items, rules.ChecklistPercent))
	fmt.Printf("- command: `go run ./bench cortex -cards %d -items %d -rounds %d`\n", *cards, *per, *rounds)
	fmt.Printf("- board: %d cards, %d checklist items; %d findings; similar pairs: %d (naive %d)\n\n",
		len(board), len(items), len(r.Findings), fast, naive)
	fmt.Println("| variant | CPU ms per scan | × (n) |")
	fmt.Println("|---|--:|--:|")
	fmt.Printf("| (s) rules.Scan, pre-filtered pairs | %.0f | %.3f |\n", float64(scan)/1e6, float64(scan)/float64(base))
	fmt.Printf("| (n) naive all-pairs edit distance (pairs only) | %.0f | 1.000 |\n", float64(base)/1e6)
	if fast != naive {
		return fmt.Errorf("the pre-filtered comparison found %d pairs, the naive one %d", fast, naive)
	}
	return nil
}
