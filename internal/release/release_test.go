package release

import "testing"

func TestString(t *testing.T) {
	for _, c := range []struct {
		b    Build
		want string
	}{
		{Build{Version: "2.0.0"}, "2.0.0"},
		{Build{Version: "2.0.0", Go: "go1.26.8"}, "2.0.0 go1.26.8"},
		{Build{Version: "2.0.0", Commit: "4c26e3c7ab12f00d4c26e3c7ab12f00d4c26e3c7", Go: "go1.26.8"}, "2.0.0 commit 4c26e3c7ab12 go1.26.8"},
		{Build{Version: "2.1.0", Commit: "4c26e3c7", Modified: true}, "2.1.0 commit 4c26e3c7 (modified)"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}

// The release the cards carry (RULINGS reconciliation 13).
func TestVersionIsTheCardsRelease(t *testing.T) {
	if Version != "2.0.0" || Read().Version != Version {
		t.Fatalf("Version %q, Read %q", Version, Read().Version)
	}
}
