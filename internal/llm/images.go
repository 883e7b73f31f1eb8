package llm

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ImageSizes are the sizes GenerateImages asks for (RULINGS "The assistant":
// landscape, portrait, square).
var ImageSizes = []string{"1536x1024", "1024x1536", "1024x1024"}

// MaxImages is the most images one call asks for.
const MaxImages = 4

// maxImagesAnswer bounds an image generation's answer (four large PNGs in
// base64).
const maxImagesAnswer = 64 << 20

// ErrInvalidImageRequest is a request refused before calling the provider.
var ErrInvalidImageRequest = errors.New("llm: invalid image request")

// GenerateImages asks POST /images/generations for n images (1–4) of size
// as `b64_json` and answers their bytes. An answer that carries a URL
// instead of the bytes is an error: provider URLs are never fetched. Only a
// refused connection is retried: once the request is sent the provider may
// charge for it, so a failure after that is answered, never repeated.
func (c *Client) GenerateImages(ctx context.Context, prompt string, n int, size string) ([][]byte, error) {
	switch {
	case !c.CanDraw():
		return nil, fmt.Errorf("%w: images (--llm-image-model)", ErrNoModel)
	case n < 1 || n > MaxImages:
		return nil, fmt.Errorf("%w: n must be 1 to %d", ErrInvalidImageRequest, MaxImages)
	case !slices.Contains(ImageSizes, size):
		return nil, fmt.Errorf("%w: size must be one of %s", ErrInvalidImageRequest, strings.Join(ImageSizes, ", "))
	case strings.TrimSpace(prompt) == "":
		return nil, fmt.Errorf("%w: the prompt is empty", ErrInvalidImageRequest)
	}
	ctx, cancel := context.WithTimeout(ctx, c.t.Images)
	defer cancel()
	var out struct {
		Data []struct {
			B64JSON string `json:"b64_json"`
			URL     string `json:"url"`
		} `json:"data"`
	}
	err := c.postJSON(ctx, "/images/generations", map[string]any{
		"model": c.cfg.ImageModel, "prompt": prompt, "n": n, "size": size, "response_format": "b64_json",
	}, &out, maxImagesAnswer, false)
	if err != nil {
		return nil, err
	}
	if len(out.Data) == 0 || len(out.Data) > n {
		return nil, fmt.Errorf("llm: asked for %d images, the provider answered %d", n, len(out.Data))
	}
	images := make([][]byte, 0, len(out.Data))
	for i, d := range out.Data {
		if d.B64JSON == "" {
			return nil, fmt.Errorf("llm: image %d came without b64_json (provider URLs are not fetched)", i)
		}
		b, err := base64.StdEncoding.DecodeString(d.B64JSON)
		if err != nil || len(b) == 0 {
			return nil, fmt.Errorf("llm: image %d is not valid base64", i)
		}
		images = append(images, b)
	}
	return images, nil
}
