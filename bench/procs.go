package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a server subprocess whose CPU time the benchmark reads.
type proc struct {
	name string
	cmd  *exec.Cmd
	url  string // http://127.0.0.1:PORT
	done chan struct{}
}

// procs remembers every subprocess so that each one is killed on exit.
type procs struct {
	mu    sync.Mutex
	list  []*proc
	after []func() // run by killAll once every subprocess is gone
}

// atExit runs f after killAll has stopped the subprocesses (dropping the
// PostgreSQL schema they were using).
func (ps *procs) atExit(f func()) {
	ps.mu.Lock()
	ps.after = append(ps.after, f)
	ps.mu.Unlock()
}

// start runs a subprocess that dies with us (Pdeathsig) as well as on killAll.
func (ps *procs) start(name string, stderr io.Writer, bin string, args ...string) (*proc, io.Reader, error) {
	p, stdout, _, err := ps.startPiped(name, stderr, false, bin, args...)
	return p, stdout, err
}

// startPiped is start with, when withStdin, a pipe to the subprocess's stdin.
func (ps *procs) startPiped(name string, stderr io.Writer, withStdin bool, bin string, args ...string) (*proc, io.Reader, io.WriteCloser, error) {
	return ps.startCmd(name, stderr, withStdin, exec.Command(bin, args...))
}

// startCmd is startPiped for a command whose directory or environment the
// caller has set.
func (ps *procs) startCmd(name string, stderr io.Writer, withStdin bool, cmd *exec.Cmd) (*proc, io.Reader, io.WriteCloser, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	var stdin io.WriteCloser
	if withStdin {
		if stdin, err = cmd.StdinPipe(); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	ps.mu.Lock()
	ps.list = append(ps.list, p)
	ps.mu.Unlock()
	return p, stdout, stdin, nil
}

// killAll kills every subprocess started, by its own pid, and waits for it.
func (ps *procs) killAll() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, p := range ps.list {
		_ = p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
		}
	}
	ps.list = nil
	for _, f := range ps.after {
		f()
	}
	ps.after = nil
}

// stop ends p with SIGTERM, so a server drains and releases what it holds
// in the database, then SIGKILL if it is still there after grace; p leaves
// the list killAll works through.
func (ps *procs) stop(p *proc, grace time.Duration) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.list = slices.DeleteFunc(ps.list, func(q *proc) bool { return q == p })
}

// startChild runs this very binary in a server mode; the child prints
// "ADDR host:port" on its stdout once it listens.
func (ps *procs) startChild(mode string, args ...string) (*proc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p, stdout, err := ps.start(mode, os.Stderr, self, append([]string{mode}, args...)...)
	if err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		p.url = "http://" + a
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("%s exited before listening", mode)
	case <-time.After(15 * time.Second):
		return nil, fmt.Errorf("%s did not listen within 15s", mode)
	}
}

// freeAddr finds a free loopback port for the real server, which takes --addr.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitHealthy polls GET /healthz until it answers 200, for at most limit.
func waitHealthy(ctx context.Context, p *proc, limit time.Duration) error {
	return waitOK(ctx, p, "/healthz", limit)
}

// waitOK polls GET path until it answers 200, for at most limit.
func waitOK(ctx context.Context, p *proc, path string, limit time.Duration) error {
	c := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited during start-up", p.name)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if res, err := c.Get(p.url + path); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s: GET %s not 200 within %s", p.name, path, limit)
}

// clockTick is one USER_HZ tick, the unit of utime and stime in /proc/PID/stat.
var clockTick = func() time.Duration {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if hz, perr := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && perr == nil && hz > 0 {
		return time.Second / time.Duration(hz)
	}
	return 10 * time.Millisecond // USER_HZ is 100 on every Linux architecture Go supports
}()

// cpu is the process's own accounting: user plus system time of all its
// threads, from /proc/PID/stat (fields 14 and 15).
func (p *proc) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 || i+2 > len(s) {
		return 0, errors.New("unexpected /proc stat format")
	}
	f := strings.Fields(s[i+2:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * clockTick, nil
}
