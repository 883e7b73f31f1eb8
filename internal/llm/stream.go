package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ErrTruncated is a stream that ended before `data: [DONE]`: what came is
// not a finished reply.
var ErrTruncated = errors.New("llm: the provider's stream ended before it was done")

// ErrIdle is a stream the provider stopped feeding for longer than the idle
// timeout (or whose headers did not come in time).
var ErrIdle = errors.New("llm: the provider stopped answering")

// StreamError is an error the provider reported inside a stream.
type StreamError struct {
	Type string
	Code string
}

func (e *StreamError) Error() string {
	s := "llm: the provider reported an error mid-stream"
	if e.Type != "" || e.Code != "" {
		s += " (" + strings.Trim(e.Type+" "+e.Code, " ") + ")"
	}
	return s
}

// maxEvent bounds one server-sent event's data.
const maxEvent = 1 << 20

type chunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
	} `json:"choices"`
	Error *struct {
		Type string `json:"type"`
		Code any    `json:"code"`
	} `json:"error"`
}

// Stream asks for a chat completion of messages and hands each piece of
// content to onToken as it arrives, in order. It answers the whole reply
// once the provider says `[DONE]`; on any error the reply is "" (what came
// before the failure is not a finished reply). An error from onToken stops
// the stream and is answered as is. Cancelling ctx (the operator's client
// went away) cancels the request and closes the connection to the provider.
//
// A refused connection or a 502/503 is tried once more: both come before
// any token, so nothing was generated or shown.
func (c *Client) Stream(ctx context.Context, messages []Message, onToken func(string) error) (string, error) {
	body, err := json.Marshal(request{Model: c.cfg.Model, Messages: messages, Stream: true})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// One timer: first the wait for headers, then the silence between reads.
	timer := time.AfterFunc(c.t.Headers, func() { cancel(ErrIdle) })
	defer timer.Stop()
	res, err := c.send(ctx, "/chat/completions", "application/json", func() io.Reader { return bytes.NewReader(body) }, true)
	if err != nil {
		return "", streamErr(ctx, err)
	}
	defer res.Body.Close()
	timer.Reset(c.t.Idle)
	dec := newSSE(&idleReader{r: res.Body, t: timer, d: c.t.Idle})
	var full strings.Builder
	for {
		data, err := dec.next()
		if errors.Is(err, io.EOF) {
			return "", ErrTruncated
		}
		if err != nil {
			return "", streamErr(ctx, fmt.Errorf("llm: read: %w", err))
		}
		if data == "[DONE]" {
			return full.String(), nil
		}
		var ch chunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return "", fmt.Errorf("llm: malformed chunk: %w", err)
		}
		if ch.Error != nil {
			e := &StreamError{}
			if plainWord.MatchString(ch.Error.Type) {
				e.Type = ch.Error.Type
			}
			if code, ok := ch.Error.Code.(string); ok && plainWord.MatchString(code) {
				e.Code = code
			}
			return "", e
		}
		if len(ch.Choices) == 0 || ch.Choices[0].Delta.Content == "" {
			continue // role announcements, usage, keep-alives
		}
		tok := ch.Choices[0].Delta.Content
		full.WriteString(tok)
		if err := onToken(tok); err != nil {
			return "", err
		}
	}
}

// streamErr names why a stream's request or read failed: the caller's
// cancellation, the idle timeout, or err itself.
func streamErr(ctx context.Context, err error) error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, ErrIdle):
		return ErrIdle
	case cause != nil:
		return fmt.Errorf("llm: %w", cause)
	}
	return err
}

// idleReader pushes the idle deadline back each time bytes arrive.
type idleReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.t.Reset(ir.d)
	}
	return n, err
}

// sse decodes a text/event-stream into the data of each event (multi-line
// data joined by "\n"). Comments, `event:`, `id:` and `retry:` lines are
// skipped: the chat completion wire puts everything in `data:`.
type sse struct {
	r *bufio.Reader
}

func newSSE(r io.Reader) *sse { return &sse{r: bufio.NewReaderSize(r, 4096)} }

var errEventTooLarge = fmt.Errorf("llm: an event is larger than %d bytes", maxEvent)

// next answers the next event's data, io.EOF at the end of the stream (an
// event not closed by a blank line is dropped, as the format says).
func (s *sse) next() (string, error) {
	var data []byte
	seen := false
	for {
		line, err := s.line()
		if err != nil {
			return "", err
		}
		if len(line) == 0 {
			if seen {
				return string(data), nil
			}
			continue
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		if len(name) == 0 {
			continue // a comment (keep-alive)
		}
		if !found {
			value = nil
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if string(name) != "data" {
			continue
		}
		if seen {
			data = append(data, '\n')
		}
		if len(data)+len(value) > maxEvent {
			return "", errEventTooLarge
		}
		data = append(data, value...)
		seen = true
	}
}

// line reads one line without its ending (\n or \r\n), refusing lines
// longer than maxEvent.
func (s *sse) line() ([]byte, error) {
	var out []byte
	for {
		part, err := s.r.ReadSlice('\n')
		if len(out)+len(part) > maxEvent+2 {
			return nil, errEventTooLarge
		}
		out = append(out, part...)
		switch {
		case err == nil:
			out = bytes.TrimSuffix(out[:len(out)-1], []byte("\r"))
			return out, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, io.EOF // a line cut short is not a line
		default:
			return nil, err
		}
	}
}
