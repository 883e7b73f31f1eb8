package throughtest

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain lets more of the parallel tests run at once than there are cores,
// unless -parallel is given. On PostgreSQL they mostly wait (on commits and
// CREATE DATABASE), and the default, GOMAXPROCS, suited them when each area
// was its own binary and `go test -p` ran several side by side: measured on
// 2 cores, the PostgreSQL leg's run of this package took 123 s at 2 and 94 s
// at 8; the race leg, bound by CPU, took 104 s and 102.5 s.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0))); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
