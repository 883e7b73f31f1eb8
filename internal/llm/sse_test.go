package llm

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func decodeAll(s string) ([]string, error) {
	d := newSSE(strings.NewReader(s))
	var out []string
	for {
		data, err := d.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, data)
	}
}

func TestSSEDecoder(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		want []string
	}{
		"two events":          {"data: a\n\ndata: b\n\n", []string{"a", "b"}},
		"crlf":                {"data: a\r\n\r\ndata: [DONE]\r\n\r\n", []string{"a", "[DONE]"}},
		"no space":            {"data:a\n\n", []string{"a"}},
		"one space only":      {"data:  a\n\n", []string{" a"}},
		"multi-line":          {"data: a\ndata: b\n\n", []string{"a\nb"}},
		"comments and fields": {": keep-alive\n\nevent: x\nid: 7\nretry: 5\ndata: a\n\n", []string{"a"}},
		"no colon":            {"data\n\n", []string{""}},
		"unterminated":        {"data: a\n\ndata: cut", []string{"a"}},
		"blank lines only":    {"\n\n\n", nil},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := decodeAll(tc.in)
			if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := decodeAll("data: " + strings.Repeat("x", maxEvent+10) + "\n\n"); !errors.Is(err, errEventTooLarge) {
		t.Fatalf("a huge event: %v", err)
	}
}

// FuzzSSE: any input decodes without panicking into events within the size
// bound, and a payload without line breaks survives being framed as data.
func FuzzSSE(f *testing.F) {
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n", "hi")
	f.Add(": ping\r\n\r\ndata:x\r\ndata: y\n\n", "[DONE]")
	f.Add("event: error\ndata\n\n\n", " two  spaces ")
	f.Fuzz(func(t *testing.T, stream, payload string) {
		events, err := decodeAll(stream)
		if err != nil && !errors.Is(err, errEventTooLarge) {
			t.Fatalf("error %v", err)
		}
		for _, e := range events {
			if len(e) > maxEvent {
				t.Fatalf("event of %d bytes", len(e))
			}
		}
		if strings.ContainsAny(payload, "\r\n") || len(payload) > maxEvent {
			return
		}
		got, err := decodeAll("data: " + payload + "\n\n")
		if err != nil || len(got) != 1 || got[0] != payload {
			t.Fatalf("payload %q came back %q, %v", payload, got, err)
		}
	})
}
