package documents

import (
	"encoding/json"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/input"
)

// ContentLimit is how many characters (Unicode code points, not bytes)
// GetDocumentContent answers (RULINGS "The assistant").
const ContentLimit = 8000

// MaxUpload is the largest file a multipart upload takes, in bytes
// (docs/decisions.md "The assistant (issue 16)").
const MaxUpload = 10 << 20

// textTypes are the types whose content comes back as text.
var textTypes = []string{"text/plain", "text/markdown", "application/json", "text/csv"}

// IsText reports whether documents of media type t are text.
func IsText(t string) bool { return slices.Contains(textTypes, t) }

// Kind is what an upload is stored as.
type Kind struct {
	MimeType string
	Text     bool
}

// mediaType is t's type without parameters, lowercased; "" when t is not a
// media type.
func mediaType(t string) string {
	mt, _, err := mime.ParseMediaType(t)
	if err != nil {
		return ""
	}
	return mt
}

// byExtension is the text type a file name says, for uploads whose part
// declares nothing useful (browsers send .md and some .csv files so).
func byExtension(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".txt", ".text":
		return "text/plain"
	case ".md", ".markdown":
		return "text/markdown"
	case ".json":
		return "application/json"
	case ".csv":
		return "text/csv"
	}
	return ""
}

// sniffed is net/http's content sniffing without parameters.
func sniffed(data []byte) string { return mediaType(http.DetectContentType(data)) }

// signature reports whether a sniffed type comes from a binary signature
// (an image, a PDF, an archive…) rather than "looks like text" or "unknown".
func signature(t string) bool {
	return t != "application/octet-stream" && !strings.HasPrefix(t, "text/")
}

// Classify decides how an uploaded file is stored, from the type its part
// declares (or its name's extension when it declares none) and its bytes:
//   - declared as one of the text types: text of that type, when the bytes
//     are UTF-8 without NUL; bytes with a binary signature (a PNG sent as
//     text/plain) are stored as what they are; anything else is refused.
//   - declared as nothing: text/plain when the bytes are text, else binary.
//   - declared as anything else: binary, typed by the bytes' signature when
//     they have one, else as declared.
func Classify(declared, filename string, data []byte) (Kind, error) {
	t := mediaType(declared)
	if t == "" || t == "application/octet-stream" {
		t = byExtension(filename)
	}
	s := sniffed(data)
	switch {
	case IsText(t):
		if err := checkText(t, data); err != nil {
			if signature(s) {
				return Kind{MimeType: s}, nil
			}
			return Kind{}, err
		}
		return Kind{MimeType: t, Text: true}, nil
	case t == "":
		if input.Text(string(data)) && (s == "text/plain" || len(data) == 0) {
			return Kind{MimeType: "text/plain", Text: true}, nil
		}
		if IsText(s) { // text/plain that is not UTF-8: bytes of no known type
			return Kind{MimeType: "application/octet-stream"}, nil
		}
		return Kind{MimeType: s}, nil
	case signature(s):
		return Kind{MimeType: s}, nil
	}
	return Kind{MimeType: t}, nil
}

// checkText refuses content of a text type that is not UTF-8 without NUL,
// and JSON that does not parse.
func checkText(t string, data []byte) error {
	if !input.Text(string(data)) {
		return input.NotText("content")
	}
	if t == "application/json" && !json.Valid(data) {
		return apperr.Invalid("content is declared application/json but is not valid JSON")
	}
	return nil
}

// textType is the type a JSON create or update names: text/plain when
// empty, else one of the text types.
func textType(declared string) (string, error) {
	if declared == "" {
		return "text/plain", nil
	}
	t := mediaType(declared)
	if !IsText(t) {
		return "", apperr.Invalid("mimeType %q is not a text type (%s); upload other files as multipart/form-data",
			declared, strings.Join(textTypes, ", "))
	}
	return t, nil
}

// Cut is text's first limit characters, whether it was cut, and its length
// in characters.
func Cut(text string, limit int) (string, bool, int) {
	total := utf8.RuneCountInString(text)
	if total <= limit {
		return text, false, total
	}
	n := 0
	for i := range text {
		if n == limit {
			return text[:i], true, total
		}
		n++
	}
	return text, false, total
}

// Disposition is the Content-Disposition of a document served raw: inline
// only for types a browser shows without running anything (images, plain
// text), an attachment otherwise; the file name is the title, encoded
// as RFC 6266 says (mime.FormatMediaType escapes or encodes it).
func Disposition(title, mimeType string) string {
	kind := "attachment"
	if slices.Contains(inlineTypes, mimeType) {
		kind = "inline"
	}
	name := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' {
			return '_'
		}
		return r
	}, title)
	if v := mime.FormatMediaType(kind, map[string]string{"filename": name}); v != "" {
		return v
	}
	return kind
}

// inlineTypes are shown in the browser when a document is opened.
var inlineTypes = []string{
	"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp",
	"text/plain", "text/markdown", "text/csv", "application/json",
}
