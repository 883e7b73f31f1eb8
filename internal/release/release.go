// Package release is the version this build of Switchboard reports (RULINGS
// "Onboarding, sprite, admin views", Version; reconciliation 13): the
// release the agent card and the well-known document carry, which
// `switchboard version` prints with the commit the build was made from.
package release

import (
	"runtime/debug"
	"strings"
)

// Version is the release. A release build may set it with
// -ldflags "-X github.com/switchboard-hq/switchboard/internal/release.Version=2.0.1";
// it is a variable for that reason only.
var Version = "2.0.0"

// Build is what the binary knows of its build.
type Build struct {
	Version string
	// Commit is the VCS revision, "" when the build has no VCS information
	// (go run, a build outside a checkout, -buildvcs=false).
	Commit string
	// Modified: the checkout had uncommitted changes.
	Modified bool
	// Go is the toolchain's version.
	Go string
}

// Read answers the running binary's build.
func Read() Build {
	b := Build{Version: Version}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Go = info.GoVersion
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// shortCommit is how many hex digits of the revision are shown, as git's
// abbreviations of this repository's size are.
const shortCommit = 12

// String is the version line: "2.0.0 commit 4c26e3c7ab12 go1.26.8", with
// "(modified)" after the commit for a build of a changed checkout, and
// without the commit when the build has none.
func (b Build) String() string {
	parts := []string{b.Version}
	if b.Commit != "" {
		c := b.Commit
		if len(c) > shortCommit {
			c = c[:shortCommit]
		}
		parts = append(parts, "commit", c)
		if b.Modified {
			parts = append(parts, "(modified)")
		}
	}
	if b.Go != "" {
		parts = append(parts, b.Go)
	}
	return strings.Join(parts, " ")
}
