package main

import (
	"fmt"
	"io"
)

// goal is one of issue 34's targets for a subcommand: a figure of the run and
// the most it may be.
type goal struct {
	what string // the figure, as the report names it
	got  float64
	most float64
	unit string // after both numbers: "×", " KiB"
}

// holdGoals prints each goal beside its figure, after the rest of the report,
// and answers an error when one is missed, so that the subcommand exits
// non-zero. A figure that could not be measured (NaN) counts as missed.
func holdGoals(w io.Writer, name string, gs []goal) error {
	fmt.Fprintln(w, "\nTargets (issue 34):")
	if len(gs) == 0 {
		fmt.Fprintln(w, "- none set for this benchmark")
		return nil
	}
	missed := 0
	for _, g := range gs {
		ok := g.got <= g.most
		if !ok {
			missed++
		}
		fmt.Fprintf(w, "- %s: %.2f%s, target ≤ %g%s: %s\n", g.what, g.got, g.unit, g.most, g.unit, met(ok))
	}
	if missed > 0 {
		return fmt.Errorf("%s: %d of %d targets not met (the report says which)", name, missed, len(gs))
	}
	return nil
}
