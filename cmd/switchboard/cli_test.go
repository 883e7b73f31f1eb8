package main

import (
	"bufio"
	"bytes"
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

// Issue 12 item 3: a help request is a success with the usage on stdout; a
// mistake is exit status 2 with its explanation printed once.
func TestServeHelpAndMistakes(t *testing.T) {
	for _, help := range []string{"--help", "-h", "-help"} {
		code, stdout, stderr := runBinary(t, "serve", help)
		if code != 0 || !strings.HasPrefix(stdout, "usage: switchboard serve [flags]") ||
			!strings.Contains(stdout, "-addr") || !strings.Contains(stdout, "SWITCHBOARD_DB") || stderr != "" {
			t.Errorf("serve %s: exit %d\nstdout %q\nstderr %q", help, code, stdout, stderr)
		}
	}
	code, stdout, stderr := runBinary(t, "serve", "--frobnicate")
	const want = "flag provided but not defined: -frobnicate"
	if code != 2 || stdout != "" || strings.Count(stderr, want) != 1 || !strings.Contains(stderr, "usage: switchboard serve") {
		t.Errorf("serve --frobnicate: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
	code, _, stderr = runBinary(t, "serve", "--heartbeat", "soon")
	if code != 2 || strings.Count(stderr, "soon") != 1 {
		t.Errorf("serve --heartbeat soon: exit %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{nil, {"frobnicate"}} {
		code, _, stderr := runBinary(t, args...)
		if code != 2 || strings.Count(stderr, "usage: switchboard <command>") != 1 || strings.Count(stderr, "switchboard:") != 1 {
			t.Errorf("switchboard %v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if code, stdout, _ := runBinary(t, "--help"); code != 0 || !strings.HasPrefix(stdout, "usage: switchboard <command>") {
		t.Errorf("switchboard --help: exit %d, stdout %q", code, stdout)
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
