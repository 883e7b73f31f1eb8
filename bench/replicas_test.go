package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplicasHAProxyConfig checks that `go run ./bench replicas` can take
// the README's HAProxy block for each n it measures: the server lines of the
// first n replicas kept, the others left out, the rest unchanged.
func TestReplicasHAProxyConfig(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := haproxyConfig(string(readme), replicaMost)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= replicaMost; n++ {
		conf, err := haproxyConfig(string(readme), n)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		var servers, rest []string
		for line := range strings.SplitSeq(conf, "\n") {
			if strings.Contains(line, "${SWITCHBOARD_REPLICA_") {
				servers = append(servers, strings.TrimSpace(line))
			} else {
				rest = append(rest, line)
			}
		}
		if len(servers) != n || !strings.Contains(servers[n-1], "replica"+string(rune('0'+n))) {
			t.Errorf("n=%d: server lines %q", n, servers)
		}
		var fullRest []string
		for line := range strings.SplitSeq(full, "\n") {
			if !strings.Contains(line, "${SWITCHBOARD_REPLICA_") {
				fullRest = append(fullRest, line)
			}
		}
		if strings.Join(rest, "\n") != strings.Join(fullRest, "\n") {
			t.Errorf("n=%d: lines besides the servers differ from the README's", n)
		}
	}
	if _, err := haproxyConfig(string(readme), replicaMost+1); err == nil {
		t.Errorf("n=%d: no error though the README names %d servers", replicaMost+1, replicaMost)
	}
}
