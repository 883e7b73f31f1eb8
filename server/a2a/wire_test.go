package a2a

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
)

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		``: true, `null`: true, `7`: true, `-1.5e3`: true, `"abc"`: true, ` "x" `: true,
		`{}`: false, `{"a":1}`: false, `[1]`: false, `true`: false, `false`: false,
	} {
		if got := validID(json.RawMessage(id)); got != want {
			t.Errorf("validID(%s) = %v, want %v", id, got, want)
		}
	}
}

// The fields each family requires of a message (RULINGS "A2A" details of
// 2026-11-28), named by path in the refusal.
func TestRequiredMessageFields(t *testing.T) {
	cases := []struct {
		name string
		dec  func(json.RawMessage) (*send, error)
		raw  string
		want string // the refusal names it; empty: accepted
	}{
		{"legacy whole", legacySend, `{"message":{"parts":[{"type":"text","text":"x"}]}}`, ""},
		{"legacy no parts", legacySend, `{"message":{"role":"user"}}`, "params.message.parts"},
		{"legacy empty parts", legacySend, `{"message":{"parts":[]}}`, "params.message.parts"},
		{"0.3 whole", decodeV03Send, `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"x"}]}}`, ""},
		{"0.3 no messageId", decodeV03Send, `{"message":{"role":"user","parts":[{"kind":"text","text":"x"}]}}`, "params.message.messageId"},
		{"0.3 blank messageId", decodeV03Send, `{"message":{"messageId":" ","role":"user","parts":[{"kind":"text","text":"x"}]}}`, "params.message.messageId"},
		{"0.3 no role", decodeV03Send, `{"message":{"messageId":"m","parts":[{"kind":"text","text":"x"}]}}`, "params.message.role"},
		{"0.3 no parts", decodeV03Send, `{"message":{"messageId":"m","role":"user"}}`, "params.message.parts"},
		{"0.3 agent role", decodeV03Send, `{"message":{"messageId":"m","role":"agent","parts":[{"kind":"text","text":"x"}]}}`, "params.message.role must be user"},
		{"1.0 whole", decodeV1Send, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}`, ""},
		{"1.0 no messageId", decodeV1Send, `{"message":{"role":"ROLE_USER","parts":[{"text":"x"}]}}`, "params.message.messageId"},
		{"1.0 no role", decodeV1Send, `{"message":{"messageId":"m","parts":[{"text":"x"}]}}`, "params.message.role"},
		{"1.0 no parts", decodeV1Send, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[]}}`, "params.message.parts"},
	}
	for _, tc := range cases {
		got, err := tc.dec(json.RawMessage(tc.raw))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want == "" && got.msg.ID == "":
			t.Errorf("%s: accepted without a message id", tc.name)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want a refusal naming %s", tc.name, err, tc.want)
		}
	}
}

func legacySend(raw json.RawMessage) (*send, error) { return decodeLegacySend(raw, false) }

func TestDecodeList(t *testing.T) {
	q, err := decodeList(nil)
	if err != nil || q.size != defaultListSize || q.state != "" || q.after != nil || q.since != nil || q.withOutput {
		t.Fatalf("no params: %+v %v", q, err)
	}
	q, err = decodeList(json.RawMessage(`{"status":"TASK_STATE_INPUT_REQUIRED","pageSize":100,"statusTimestampAfter":"2026-11-28T10:00:00+01:00","includeArtifacts":true}`))
	if err != nil || q.state != a2a.TaskStateInputRequired || q.size != 100 || !q.withOutput || q.since.Hour() != 9 || q.since.Location().String() != "UTC" {
		t.Fatalf("all params: %+v %v", q, err)
	}
	for n, want := range []a2a.TaskState{"", a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted,
		a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateInputRequired, a2a.TaskStateRejected, a2a.TaskStateAuthRequired} {
		raw, _ := json.Marshal(map[string]any{"status": n})
		if q, err := decodeList(raw); err != nil || q.state != want {
			t.Errorf("status %d: %v %v, want %s", n, q, err, want)
		}
	}
	for _, bad := range []string{`{"status":9}`, `{"status":-1}`, `{"status":"working"}`, `{"status":"TASK_STATE_UNKNOWN"}`, `{"status":1.5}`,
		`{"pageSize":0}`, `{"pageSize":101}`, `{"pageToken":"x"}`, `{"statusTimestampAfter":"2026-11-28"}`, `[]`} {
		var ep errParams
		if _, err := decodeList(json.RawMessage(bad)); !errors.As(err, &ep) {
			t.Errorf("%s: %v, want -32602", bad, err)
		}
	}
}

// The request decoders refuse or accept any bytes without panicking, and
// what they accept carries the fields its family requires.
func FuzzDecoders(f *testing.F) {
	for _, seed := range []string{
		`{"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"x"}]}}`,
		`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"},{"raw":"AAE="},{"url":"https://x"},{"data":[1]}]}}`,
		`{"id":"t","message":{"parts":[{"type":"data","data":{"a":1}}]}}`,
		`{"status":"TASK_STATE_COMPLETED","pageSize":3,"pageToken":"MTIzLmFiYw"}`,
		`{"id":"x","historyLength":-1}`, `null`, `[]`, `{"message":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, dec := range []func(json.RawMessage) (*send, error){legacySend, decodeV03Send, decodeV1Send} {
			s, err := dec(raw)
			if err == nil && (s.msg == nil || s.msg.ID == "" || len(s.msg.Parts) == 0) {
				t.Fatalf("accepted %s without an id or parts", raw)
			}
		}
		if q, err := decodeList(raw); err == nil && (q.size < 1 || q.size > maxListSize) {
			t.Fatalf("accepted page size %d from %s", q.size, raw)
		}
		if q, err := decodeQuery(raw); err == nil && strings.TrimSpace(q.ID) == "" {
			t.Fatalf("accepted %s without an id", raw)
		}
	})
}
