package throughtest

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain lets more of the parallel tests run at once than there are cores,
// unless -parallel is given. They mostly wait (on their servers, databases,
// agents and streams), and the default, GOMAXPROCS, suited them when each area
// was its own binary and `go test -p` ran several side by side: gathered here,
// 4×GOMAXPROCS keeps about as many in flight as -p 4 binaries of two did.
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
