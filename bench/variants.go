package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
)

const (
	listPath    = "/api/v2/queue?limit=50"
	connectPath = "/switchboard.v1.QueueService/ListQueueItems"
)

func headers(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func restTarget(p *proc, key string, gz bool) *target {
	t := &target{key: "c", label: "(c) REST GET", proc: p, method: http.MethodGet, path: listPath,
		header: headers("Authorization", "Bearer "+key), want: http.StatusOK}
	if gz {
		t.key, t.label = "c+gz", "(c) REST GET, gzip"
		t.header.Set("Accept-Encoding", "gzip")
	}
	return t
}

// connectTarget is a Connect unary call with the JSON codec. connect-go
// negotiates unary response compression with the standard Accept-Encoding
// header (Connect-Accept-Encoding is for streams), so both are sent.
func connectTarget(p *proc, key string, gz bool) *target {
	t := &target{key: "d", label: "(d) Connect JSON", proc: p, method: http.MethodPost, path: connectPath,
		body: []byte(`{"limit":50}`), want: http.StatusOK,
		header: headers("Authorization", "Bearer "+key, "Content-Type", "application/json",
			"Connect-Protocol-Version", "1")}
	if gz {
		t.key, t.label = "d+gz", "(d) Connect JSON, gzip"
		t.header.Set("Accept-Encoding", "gzip")
		t.header.Set("Connect-Accept-Encoding", "gzip")
	}
	return t
}

func listTargets(e *env, key string) []*target {
	auth := headers("Authorization", "Bearer "+key)
	return []*target{
		{key: "a", label: "(a) baseline, bytes from memory", proc: e.baseline, method: http.MethodGet,
			path: listPath, header: auth, want: http.StatusOK},
		{key: "b", label: "(b) database/sql + encoding/json", proc: e.raw, method: http.MethodGet,
			path: listPath, header: auth, want: http.StatusOK},
		{key: "b0", label: "(b0) (b) without the rate limit's count", proc: e.raw, method: http.MethodGet,
			path: listPath, header: headers("Authorization", "Bearer "+key, rawNoCount, "1"), want: http.StatusOK},
		restTarget(e.server, key, false),
		restTarget(e.server, key, true),
		connectTarget(e.server, key, false),
		connectTarget(e.server, key, true),
	}
}

// createTarget adds one item per request with a distinct title.
func createTarget(p *proc, key string) *target {
	return &target{key: "e", label: "(e) create item (REST POST)", proc: p, method: http.MethodPost,
		path: "/api/v2/queue", want: http.StatusCreated,
		header: headers("Authorization", "Bearer "+key, "Content-Type", "application/json"),
		bodyFn: func(n int64) []byte { return fmt.Appendf(nil, `{"title":"bench %d"}`, n) }}
}

// connectCreateTarget is (e) over Connect JSON.
func connectCreateTarget(p *proc, key string) *target {
	return &target{key: "e-c", label: "(e-c) create item (Connect JSON)", proc: p, method: http.MethodPost,
		path: "/switchboard.v1.QueueService/CreateQueueItem", want: http.StatusOK,
		header: headers("Authorization", "Bearer "+key, "Content-Type", "application/json", "Connect-Protocol-Version", "1"),
		bodyFn: func(n int64) []byte { return fmt.Appendf(nil, `{"title":"bench connect %d"}`, n) }}
}

// probeInfo is what one answer of a variant looked like on the wire.
type probeInfo struct {
	encoding  string // Content-Encoding, "" for none
	wireBytes int
	jsonBytes int
}

// fetch returns a variant's decoded body, checking its status.
func fetch(ctx context.Context, c *http.Client, t *target) ([]byte, error) {
	body, _, err := probe(ctx, c, t)
	return body, err
}

func probe(ctx context.Context, c *http.Client, t *target) ([]byte, probeInfo, error) {
	var rd io.Reader
	if t.body != nil {
		rd = bytes.NewReader(t.body)
	}
	req, err := http.NewRequestWithContext(ctx, t.method, t.proc.url+t.path, rd)
	if err != nil {
		return nil, probeInfo{}, err
	}
	req.Header = t.header.Clone()
	res, err := c.Do(req)
	if err != nil {
		return nil, probeInfo{}, err
	}
	defer res.Body.Close()
	wire, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, probeInfo{}, err
	}
	if res.StatusCode != t.want {
		return nil, probeInfo{}, fmt.Errorf("%s: %d %s", t.label, res.StatusCode, wire)
	}
	info := probeInfo{encoding: res.Header.Get("Content-Encoding"), wireBytes: len(wire)}
	body := wire
	if info.encoding == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(wire))
		if err != nil {
			return nil, info, err
		}
		if body, err = io.ReadAll(zr); err != nil {
			return nil, info, err
		}
	}
	info.jsonBytes = len(body)
	return body, info, nil
}

// verify makes the comparison fair before anything is timed: (a) and (b)
// answer the REST page (equal after JSON normalisation), and Connect lists the
// same items in the same order.
func verify(ctx context.Context, c *http.Client, e *env, restBody []byte) error {
	e.probes = map[string]probeInfo{}
	bodies := map[string][]byte{}
	for _, t := range e.lists {
		if t.bodyFn != nil { // a session call: probe with the body of its first request
			t = &target{key: t.key, label: t.label, proc: t.proc, method: t.method, path: t.path,
				body: t.bodyFn(-1), header: t.header, want: t.want}
		}
		body, info, err := probe(ctx, c, t)
		if err != nil {
			return err
		}
		e.probes[t.key], bodies[t.key] = info, body
	}
	var rest, raw, rpc map[string]any
	for k, v := range map[string]*map[string]any{"c": &rest, "b": &raw, "d": &rpc} {
		if err := json.Unmarshal(bodies[k], v); err != nil {
			return fmt.Errorf("variant %s answered no JSON object: %w", k, err)
		}
	}
	if !reflect.DeepEqual(rest, raw) {
		return fmt.Errorf("raw page differs from REST page:\nREST %.400s\nraw  %.400s", bodies["c"], bodies["b"])
	}
	if !bytes.Equal(bodies["a"], restBody) || !bytes.Equal(bodies["c+gz"], restBody) {
		return fmt.Errorf("baseline or gzip REST body differs from the REST page")
	}
	e.identical = bytes.Equal(bodies["b"], restBody)
	restIDs, rpcIDs := itemIDs(rest), itemIDs(rpc)
	if len(restIDs) != 50 || !reflect.DeepEqual(restIDs, rpcIDs) {
		return fmt.Errorf("connect lists %d items, REST %d, or in another order", len(rpcIDs), len(restIDs))
	}
	for _, k := range []string{"m", "m-bare"} {
		page, err := mcpPage(bodies[k])
		if err != nil {
			return err
		}
		if ids := itemIDs(page); !reflect.DeepEqual(restIDs, ids) {
			return fmt.Errorf("MCP %s lists %d items, REST %d, or in another order", k, len(ids), len(restIDs))
		}
	}
	return nil
}

func itemIDs(page map[string]any) []string {
	data, _ := page["data"].(map[string]any)
	items, _ := data["items"].([]any)
	ids := make([]string, 0, len(items))
	for _, it := range items {
		m, _ := it.(map[string]any)
		id, _ := m["id"].(string)
		ids = append(ids, id)
	}
	return ids
}
