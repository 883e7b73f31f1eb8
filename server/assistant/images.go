package assistant

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/documents"
	"github.com/switchboard-hq/switchboard/server/input"
)

// Aspects are generate_image's aspects and the sizes each asks for
// (docs/decisions.md "The assistant (issue 16)").
var Aspects = map[string]string{"landscape": "1536x1024", "portrait": "1024x1536", "square": "1024x1024"}

// maxImagePrompt bounds generate_image's prompt, in characters.
const maxImagePrompt = 4000

// imageSpec is generate_image: it reaches the provider, which may charge
// for it (tagEffects), so it waits for confirmation after outside text.
func (e *Executor) imageSpec() *spec {
	return &spec{name: "generate_image", description: "Generate an image (prompt, aspect, style, numImages, model)",
		run: e.generateImage}
}

type imageRequest struct {
	Prompt    string `json:"prompt"`
	Aspect    string `json:"aspect"`
	Style     string `json:"style"`
	NumImages *int   `json:"numImages"`
	Model     string `json:"model"`
}

// generateImage asks the provider for 1–4 images as b64_json and stores
// each as a document of the operator's, in one transaction.
func (e *Executor) generateImage(ctx context.Context, p *auth.Principal, body json.RawMessage) (proto.Message, error) {
	a, err := decode[imageRequest]("generate_image", body)
	if err != nil {
		return nil, err
	}
	prompt, size, n, err := a.check(e.LLM.ImageModel())
	if err != nil {
		return nil, err
	}
	if !e.LLM.CanDraw() {
		return nil, &apperr.Error{Kind: apperr.KindUnavailable,
			Message: "generate_image needs an image model, and none is configured on this instance (--llm-base-url, --llm-image-model)"}
	}
	images, err := e.LLM.GenerateImages(ctx, prompt, n, size)
	if err != nil {
		slog.WarnContext(ctx, "assistant: image generation failed", "err", err)
		return nil, &apperr.Error{Kind: apperr.KindUnavailable, Message: "the image generation failed; nothing was stored"}
	}
	types := make([]string, len(images))
	for i, img := range images {
		if types[i] = http.DetectContentType(img); !strings.HasPrefix(types[i], "image/") {
			slog.WarnContext(ctx, "assistant: the provider answered something that is not an image", "type", types[i])
			return nil, &apperr.Error{Kind: apperr.KindUnavailable, Message: "the image generation answered something that is not an image; nothing was stored"}
		}
	}
	docs, err := db.InTxValue(ctx, e.DB, func(tx *db.Tx) ([]*ent.Document, error) {
		out := make([]*ent.Document, len(images))
		for i, img := range images {
			d, err := documents.Create(ctx, tx, documents.New{UserID: p.UserID, Actor: p.Actor(),
				Title: imageTitle(a.Prompt, i, len(images)), MimeType: types[i], Data: img, At: e.Now()})
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	res := &switchboardv1.GeneratedImages{Documents: make([]*switchboardv1.Document, len(docs))}
	for i, d := range docs {
		res.Documents[i] = documents.ToProto(d)
	}
	return res, nil
}

// check reads the request: the prompt (with the style appended), the size
// of the aspect (square by default), the count (1 by default, at most 4);
// a model other than the instance's is refused rather than ignored.
func (a imageRequest) check(model string) (prompt, size string, n int, err error) {
	prompt = strings.TrimSpace(a.Prompt)
	switch {
	case !input.Text(a.Prompt) || !input.Text(a.Style) || !input.Text(a.Aspect) || !input.Text(a.Model):
		return "", "", 0, input.NotText("generate_image's body")
	case prompt == "":
		return "", "", 0, apperr.Invalid("generate_image: prompt is required")
	case utf8.RuneCountInString(prompt)+utf8.RuneCountInString(a.Style) > maxImagePrompt:
		return "", "", 0, apperr.Invalid("generate_image: prompt and style may be %d characters together", maxImagePrompt)
	case a.Model != "" && a.Model != model:
		return "", "", 0, apperr.Invalid("generate_image: this instance draws with its configured image model only (%q)", model)
	}
	if style := strings.TrimSpace(a.Style); style != "" {
		prompt += "\nStyle: " + style
	}
	aspect := a.Aspect
	if aspect == "" {
		aspect = "square"
	}
	if size = Aspects[aspect]; size == "" {
		return "", "", 0, apperr.OneOf("aspect", aspect, []string{"landscape", "portrait", "square"})
	}
	n = 1
	if a.NumImages != nil {
		n = *a.NumImages
	}
	if n < 1 || n > llm.MaxImages {
		return "", "", 0, apperr.Invalid("generate_image: numImages must be 1 to %d", llm.MaxImages)
	}
	return prompt, size, n, nil
}

// imageTitle names an image after its prompt: "Image: a lighthouse at dusk
// (2 of 4)", the prompt cut at 60 characters.
func imageTitle(prompt string, i, n int) string {
	prompt = strings.Join(strings.Fields(prompt), " ")
	if r := []rune(prompt); len(r) > 60 {
		prompt = string(r[:59]) + "…"
	}
	if n == 1 {
		return "Image: " + prompt
	}
	return fmt.Sprintf("Image: %s (%d of %d)", prompt, i+1, n)
}
