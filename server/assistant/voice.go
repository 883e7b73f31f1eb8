package assistant

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/render"
)

// VoiceBodyLimit is the voice route's body limit, above the server's: a
// recording of llm.MaxAudio and room for the form around it.
const VoiceBodyLimit = llm.MaxAudio + 64<<10

// errNoTranscription is the voice route without a transcription model.
var errNoTranscription = &apperr.Error{Kind: apperr.KindUnavailable,
	Message: "voice needs a transcription model, and none is configured on this instance (--llm-base-url, --llm-transcription-model)"}

// Voice serves POST /api/chat/voice: a multipart/form-data body with one
// `audio` part (WebM, MP4 or WAV, told by its bytes, not its declared type;
// at most llm.MaxAudio), transcribed by the provider into {text}. The
// caller mounts it behind the gate with VoiceBodyLimit.
func (s *Service) Voice() func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		text, err := s.transcribe(r)
		if err != nil {
			return err
		}
		body, err := render.RESTMarshaler{}.Marshal(&switchboardv1.VoiceTranscript{Text: text})
		if err != nil {
			return apperr.Internal(err)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
		return nil
	}
}

func (s *Service) transcribe(r *http.Request) (string, error) {
	ctx := r.Context()
	if _, err := auth.RequirePrincipal(ctx); err != nil {
		return "", err
	}
	if !s.LLM.CanTranscribe() {
		return "", errNoTranscription
	}
	audio, name, err := readAudio(r)
	if err != nil {
		return "", err
	}
	kind := AudioType(audio)
	if kind == "" {
		return "", &apperr.Error{Kind: apperr.KindUnsupportedMedia,
			Message: "the recording must be WebM, MP4 or WAV audio (told by its bytes)"}
	}
	text, err := s.LLM.Transcribe(ctx, name, kind, bytes.NewReader(audio))
	if err != nil {
		slog.WarnContext(ctx, "assistant: transcription failed", "err", err)
		return "", &apperr.Error{Kind: apperr.KindUnavailable, Message: "the transcription failed; try again"}
	}
	return text, nil
}

// readAudio reads the form's one `audio` part and its file name; any other
// part, a second recording, an empty one or one over llm.MaxAudio is
// refused.
func readAudio(r *http.Request) ([]byte, string, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, "", apperr.Invalid("the body must be multipart/form-data with an \"audio\" part")
	}
	var audio []byte
	var name string
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, "", apperr.Invalid("malformed multipart/form-data body")
		}
		if part.FormName() != "audio" || audio != nil {
			_ = part.Close()
			return nil, "", apperr.Invalid("the form takes one part, \"audio\"; it has %q", part.FormName())
		}
		audio, err = readPart(part)
		if err != nil {
			return nil, "", err
		}
		name = part.FileName()
	}
	if len(audio) == 0 {
		return nil, "", apperr.Invalid("the form needs a recording in its \"audio\" part")
	}
	if name == "" {
		name = "recording"
	}
	return audio, name, nil
}

func readPart(part *multipart.Part) ([]byte, error) {
	defer part.Close()
	// The body is already in memory (the transport's body limit, VoiceBodyLimit):
	// only the part's own size is left to check.
	data, err := io.ReadAll(io.LimitReader(part, llm.MaxAudio+1))
	switch {
	case err != nil:
		return nil, apperr.Invalid("could not read the recording")
	case len(data) > llm.MaxAudio:
		return nil, apperr.TooLarge("a recording may be %d MB at most", llm.MaxAudio>>20)
	}
	return data, nil
}

// AudioType is the type of a recording told by its first bytes: WebM (an
// EBML header), MP4 (an ftyp box) or WAV (RIFF…WAVE); "" for anything else.
func AudioType(b []byte) string {
	switch {
	case len(b) >= 4 && bytes.Equal(b[:4], []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return "audio/webm"
	case len(b) >= 12 && string(b[4:8]) == "ftyp":
		return "audio/mp4"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		return "audio/wav"
	}
	return ""
}
