package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strings"
)

// MaxAudio is the largest recording Transcribe sends (the voice route's
// limit, RULINGS "The assistant").
const MaxAudio = 25 << 20

// ErrAudioTooLarge is a recording over MaxAudio.
var ErrAudioTooLarge = fmt.Errorf("llm: audio is larger than %d bytes", MaxAudio)

// Transcribe sends a recording to POST /audio/transcriptions (multipart
// `file` and `model`, the transcription model) and answers its text. The
// recording is read whole first, so a refused connection or a 502/503 can
// be retried with the same bytes; a transcription that failed was not billed.
func (c *Client) Transcribe(ctx context.Context, filename, contentType string, r io.Reader) (string, error) {
	if !c.CanTranscribe() {
		return "", fmt.Errorf("%w: transcription (--llm-transcription-model)", ErrNoModel)
	}
	audio, err := io.ReadAll(io.LimitReader(r, MaxAudio+1))
	if err != nil {
		return "", fmt.Errorf("llm: read audio: %w", err)
	}
	if len(audio) > MaxAudio {
		return "", ErrAudioTooLarge
	}
	if len(audio) == 0 {
		return "", errors.New("llm: audio is empty")
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, safeName(filename)))
	h.Set("Content-Type", contentType)
	fw, err := mw.CreatePart(h)
	if err != nil {
		return "", err
	}
	_, _ = fw.Write(audio)
	_ = mw.WriteField("model", c.cfg.TranscriptionModel)
	_ = mw.WriteField("response_format", "json")
	if err := mw.Close(); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, c.t.Transcription)
	defer cancel()
	res, err := c.send(ctx, "/audio/transcriptions", mw.FormDataContentType(),
		func() io.Reader { return bytes.NewReader(body.Bytes()) }, true)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct {
		Text *string `json:"text"`
	}
	if err := decodeAnswer(res.Body, maxResponse, &out); err != nil {
		return "", err
	}
	if out.Text == nil {
		return "", errors.New("llm: transcription answer has no text")
	}
	return *out.Text, nil
}

// safeName keeps a filename to what a Content-Disposition carries plainly;
// the provider uses its extension to tell the format.
func safeName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == '"' || r == '\\' || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if name == "" {
		return "audio"
	}
	return name
}
