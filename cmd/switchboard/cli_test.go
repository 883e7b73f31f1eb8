package main

import (
	"bufio"
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/release"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// runBinary runs the binary to its end and answers its exit status and output.
func runBinary(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(buildBinary(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("switchboard %v: %v", args, err)
	}
	return code, out.String(), errOut.String()
}

// Issue 12 item 3: a help request is a success with the usage on stdout.
func TestServeHelp(t *testing.T) {
	for _, help := range []string{"--help", "-h", "-help"} {
		code, stdout, stderr := runBinary(t, "serve", help)
		if code != 0 || !strings.HasPrefix(stdout, "usage: switchboard serve [flags]") ||
			!strings.Contains(stdout, "-addr") || !strings.Contains(stdout, "SWITCHBOARD_DB") || stderr != "" {
			t.Errorf("serve %s: exit %d\nstdout %q\nstderr %q", help, code, stdout, stderr)
		}
	}
	for _, help := range []string{"--help", "help"} {
		code, stdout, _ := runBinary(t, help)
		if code != 0 || !strings.HasPrefix(stdout, "usage: switchboard <command>") {
			t.Errorf("switchboard %s: exit %d, stdout %q", help, code, stdout)
		}
		// Issue 32: the operations commands are listed.
		for _, cmd := range []string{"serve", "migrate", "backup", "restore", "version"} {
			if !strings.Contains(stdout, "\n  "+cmd+" ") {
				t.Errorf("switchboard %s does not list %s: %q", help, cmd, stdout)
			}
		}
	}
	for _, args := range [][]string{{"serve", "-h"}, {"help", "serve"}} {
		if code, stdout, _ := runBinary(t, args...); code != 0 || !strings.Contains(stdout, "-migrate") ||
			!strings.Contains(stdout, "SWITCHBOARD_MIGRATE") || !strings.Contains(stdout, "-shutdown-timeout") {
			t.Errorf("%s lacks --migrate or --shutdown-timeout: exit %d, %q", strings.Join(args, " "), code, stdout)
		}
	}
	if code, stdout, _ := runBinary(t, "help", "backup"); code != 0 || !strings.Contains(stdout, "-to") {
		t.Errorf("help backup: exit %d, %q", code, stdout)
	}
}

// Issue 31 point 9 (RULINGS "Onboarding, sprite, admin views", CLI): every
// usage error, a bad flag value and a bad environment twin included, exits 2
// with one line naming the mistake and one hint, nothing on stdout, and no
// usage text (serve --bogus printed sixty lines of help).
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		// want is in the error line; hint is the hint line.
		want, hint string
	}{
		{nil, "", "switchboard: no command given", "Run 'switchboard help' for the commands."},
		{[]string{"frobnicate"}, "", `switchboard: unknown command "frobnicate"`, "Run 'switchboard help' for the commands."},
		{[]string{"version", "now"}, "", `switchboard: version takes no arguments, not "now"`, "Run 'switchboard help' for the commands."},
		{[]string{"help", "frobnicate"}, "", `switchboard: help: unknown command "frobnicate"`, "Run 'switchboard help' for the commands."},
		{[]string{"help", "serve", "migrate"}, "", `switchboard: help takes one command, not "serve migrate"`, "Run 'switchboard help' for the commands."},
		{[]string{"serve", "--bogus"}, "", "switchboard serve: flag provided but not defined: -bogus", "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve", "--heartbeat", "soon"}, "", `switchboard serve: invalid value "soon" for flag -heartbeat`, "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve", "--rate-limit-per-minute", "many"}, "", `invalid value "many" for flag -rate-limit-per-minute`, "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve", "--role", "spoke"}, "", `--role must be standalone or hub, not "spoke"`, "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve", "--review-policy", "lenient"}, "", "lenient", "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve", "--federation-retry-schedule", "30s,later"}, "", `--federation-retry-schedule: "later" is not a positive duration`, "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve", "--public-url", "sb.example.com"}, "", "--public-url", "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve", "--max-body-bytes", "0"}, "", "must be positive", "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve", "extra"}, "", "unexpected arguments: extra", "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve", "--shutdown-timeout", "0s"}, "", "must be positive", "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve"}, "SWITCHBOARD_MIGRATE=maybe", "SWITCHBOARD_MIGRATE", "Run 'switchboard serve -h' for its flags."},
		{[]string{"backup"}, "", "switchboard backup: --to FILE is required", "Run 'switchboard backup -h' for its flags."},
		{[]string{"migrate", "now"}, "", "switchboard migrate: unexpected arguments: now", "Run 'switchboard migrate -h' for its flags."},
		{[]string{"serve"}, "SWITCHBOARD_HEARTBEAT=soon", "SWITCHBOARD_HEARTBEAT", "Run 'switchboard serve -h' for its flags."},
		{[]string{"serve"}, "SWITCHBOARD_RATE_LIMIT_PER_MINUTE=many", "SWITCHBOARD_RATE_LIMIT_PER_MINUTE", "Run 'switchboard serve -h' for its flags."},
	} {
		name := strings.Join(append(append([]string{}, c.env), c.args...), " ")
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(buildBinary(t), c.args...)
			cmd.Env = os.Environ()
			if c.env != "" {
				cmd.Env = append(cmd.Env, c.env)
			}
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("exit: %v, want status 2\nstderr %q", err, errOut.String())
			}
			lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
			if out.Len() != 0 || len(lines) != 2 || !strings.Contains(lines[0], c.want) || lines[1] != c.hint ||
				!strings.HasSuffix(errOut.String(), "\n") || strings.Contains(errOut.String(), "usage:") {
				t.Fatalf("stdout %q\nstderr %q\nwant one line with %q, then %q", out.String(), errOut.String(), c.want, c.hint)
			}
		})
	}
}

// RULINGS "Onboarding, sprite, admin views", Version, and reconciliation
// 13: the release the agent card carries, the commit when the build has VCS
// information (a clone has it; Go stamps none in a git worktree, whose .git
// is a file), one line ending in a newline; -ldflags -X sets the release.
func TestVersionPrintsTheRelease(t *testing.T) {
	bin := buildBinary(t)
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	commit := ""
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			commit = s.Value
		}
	}
	for _, arg := range []string{"version", "--version"} {
		code, stdout, stderr := runBinary(t, arg)
		fields := strings.Fields(stdout)
		if code != 0 || stderr != "" || len(fields) < 2 || fields[0] != "switchboard" || fields[1] != release.Version ||
			strings.Contains(stdout, "(devel)") || strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
		if has := strings.Contains(stdout, " commit "); has != (commit != "") || (commit != "" && !strings.Contains(stdout, "commit "+commit[:12])) {
			t.Errorf("%s: %q, the build's revision is %q", arg, stdout, commit)
		}
	}
	if release.Version != "2.0.0" {
		t.Errorf("the release is %q, the agent card's is 2.0.0", release.Version)
	}

	// A release build names its version at link time.
	other := filepath.Join(t.TempDir(), "switchboard")
	build := exec.Command("go", "build", "-o", other, "-ldflags", "-X github.com/switchboard-hq/switchboard/internal/release.Version=2.0.1-rc.1", ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -ldflags -X: %v\n%s", err, out)
	}
	out, err := exec.Command(other, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "switchboard 2.0.1-rc.1") {
		t.Fatalf("the linked release: %q %v", out, err)
	}
}

// logLine is one JSON log line of the binary.
type logLine map[string]any

func (l logLine) str(k string) string { s, _ := l[k].(string); return s }

// startLogged starts `switchboard serve` like startBinary and answers its base
// URL with the log lines up to and including the one naming the dashboard.
func startLogged(t *testing.T, cmd *exec.Cmd) (string, []logLine) {
	t.Helper()
	base, lines, err := tryStartLogged(t, cmd)
	if err != nil {
		t.Fatal(err)
	}
	return base, lines
}

// errExitedEarly: the process ended its log before naming the dashboard.
type errExitedEarly struct {
	lines []string // every line it wrote, JSON or not
	state string
}

func (e *errExitedEarly) Error() string {
	return fmt.Sprintf("the binary stopped before naming the dashboard (%s); it wrote:\n%s", e.state, strings.Join(e.lines, "\n"))
}

// portTaken: the port chosen for it was bound by someone else in between.
func (e *errExitedEarly) portTaken() bool {
	return slices.ContainsFunc(e.lines, func(l string) bool { return strings.Contains(l, "address already in use") })
}

// tryStartLogged is startLogged answering, instead of failing the test, an
// *errExitedEarly when the process's log ends before the dashboard line.
func tryStartLogged(t *testing.T, cmd *exec.Cmd) (string, []logLine, error) {
	t.Helper()
	keepKeyOutOfTree(t, cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	done := make(chan []logLine, 1)
	ended := make(chan []string, 1)
	go func() {
		var lines []logLine
		var raw []string
		named := false
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			raw = append(raw, sc.Text())
			var l logLine
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				continue
			}
			lines = append(lines, l)
			if m := l.str("msg"); m == msgDashboard || m == msgDashboardFirst {
				done <- lines
				named = true
				break
			}
		}
		if !named {
			ended <- raw
			return
		}
		// The rest, so that the process never blocks on a full pipe; shown
		// with SWITCHBOARD_E2E_LOGS=1 when a test needs its story.
		show := os.Getenv("SWITCHBOARD_E2E_LOGS") != ""
		for sc.Scan() {
			if show {
				fmt.Fprintf(os.Stderr, "%s: %s\n", filepath.Base(cmd.Dir), sc.Bytes())
			}
		}
	}()
	select {
	case lines := <-done:
		for _, l := range lines {
			if l.str("msg") == "switchboard listening" {
				return "http://" + l.str("addr"), lines, nil
			}
		}
		t.Fatalf("no listening line before the dashboard line: %v", lines)
	case raw := <-ended:
		state := "exit 0"
		if err := cmd.Wait(); err != nil {
			state = err.Error()
		}
		return "", nil, &errExitedEarly{lines: raw, state: state}
	case <-time.After(60 * time.Second):
		t.Fatal("the binary did not log the dashboard line within 60s")
	}
	return "", nil, nil
}

// Issue 12 item 3: start-up says in one line where the dashboard is and, on a
// new instance, that the first visit creates the owner; once there is an
// owner, it no longer says so.
func TestStartupNamesTheDashboard(t *testing.T) {
	bin := buildBinary(t)
	dsn := dbtest.DSN(t)
	base, lines := startLogged(t, exec.Command(bin, slices.Concat(serveArgs, []string{"--db", dsn})...))
	var dash []logLine
	for _, l := range lines {
		if strings.HasPrefix(l.str("msg"), msgDashboard) {
			dash = append(dash, l)
		}
	}
	if len(dash) != 1 || dash[0].str("msg") != msgDashboardFirst || dash[0].str("url") != base+"/" {
		t.Fatalf("dashboard lines on a new instance: %v (base %s)", dash, base)
	}
	res, err := http.Post(base+"/api/setup", "application/json", strings.NewReader(
		`{"username":"ann","email":"ann@example.com","password":"`+servertest.Password+`","name":"Ann","acceptedTerms":true}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("setup: %d", res.StatusCode)
	}
	cmd := exec.Command(bin, slices.Concat(serveArgs, []string{"--db", dsn})...)
	base, lines = startLogged(t, cmd)
	last := lines[len(lines)-1]
	if last.str("msg") != msgDashboard || last.str("url") != base+"/" {
		t.Fatalf("dashboard line once there is an owner: %v", last)
	}
	terminate(t, cmd, " after the restart")
}

func TestDashboardURL(t *testing.T) {
	tcp := func(s string) net.Addr { a, _ := net.ResolveTCPAddr("tcp", s); return a }
	for _, c := range []struct {
		public string
		addr   net.Addr
		want   string
	}{
		{"", tcp("127.0.0.1:8080"), "http://127.0.0.1:8080/"},
		{"", tcp("0.0.0.0:8080"), "http://localhost:8080/"},
		{"", tcp("[::]:8080"), "http://localhost:8080/"},
		{"", tcp("[::1]:8080"), "http://[::1]:8080/"},
		{"https://sb.example.com/", tcp("0.0.0.0:8080"), "https://sb.example.com/"},
		{"https://sb.example.com", tcp("0.0.0.0:8080"), "https://sb.example.com/"},
	} {
		if got := dashboardURL(c.public, c.addr); got != c.want {
			t.Errorf("dashboardURL(%q, %v) = %q, want %q", c.public, c.addr, got, c.want)
		}
	}
}
