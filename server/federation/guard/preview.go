package guard

import (
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// PreviewLimit is the length of FederationAuditLog.payload and
// responsePreview, in characters (runes).
const PreviewLimit = 500

// textWindow is how much of a text body a preview reads: enough for
// PreviewLimit runes after redaction shortens it, little enough that a large
// body costs nothing.
const textWindow = 16 << 10

var (
	// credentialRe: our credentials by prefix (API key, platform, instance,
	// peer, developer key, self-config, connect token) and their token
	// characters. No word boundary before: "xsbp_…" still hides a token.
	credentialRe = regexp.MustCompile(`(?i)(sbk|sbp|sbi|sbf|sbd|sbc|fct)_[A-Za-z0-9_-]+`)
	bearerRe     = regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+`)
	// secretPairRe: `password=…`, `"apiKey": "…"`, `Authorization: …` in text.
	secretPairRe = regexp.MustCompile(`(?i)((?:token|secret|password|passwd|api[_-]?key|authorization|credentials?|private[_-]?key|cookie)["']?\s*[:=]\s*)("(?:[^"\\]|\\.)*"?|'[^']*'?|[^\s&,;"']+)`)
)

// secretKeySuffixes: a JSON key ending so (compared as normalKey) holds a
// secret, whatever the value: federationToken, apiKey, accessPassword,
// clientSecret, authorization. tokenEstimate and maxTokens do not end so.
var secretKeySuffixes = []string{"token", "secret", "password", "passwd", "apikey", "authorization",
	"credential", "credentials", "privatekey", "cookie"}

const redacted = "[redacted]"

func secretKey(norm string) bool {
	for _, s := range secretKeySuffixes {
		if strings.HasSuffix(norm, s) {
			return true
		}
	}
	return false
}

func credentialPrefixed(s string) bool { return credentialRe.MatchString(s) }

// redact hides credentials, bearer tokens and secret pairs in a text,
// keeping the credential's prefix so a reader knows which kind it was.
func redact(s string) string {
	if strings.IndexByte(s, '_') >= 0 {
		s = credentialRe.ReplaceAllString(s, "${1}_"+redacted)
	}
	s = bearerRe.ReplaceAllString(s, "${1} "+redacted)
	if strings.ContainsAny(s, ":=") {
		s = secretPairRe.ReplaceAllString(s, "${1}"+redacted)
	}
	return s
}

// Preview is the audit row's payload preview of a body Inspect judged as v:
// compact JSON (or the text) with credentials and secrets redacted, the
// personal data v found masked (a card keeps its last four digits, the rest
// becomes `***`), cut at PreviewLimit runes. It is valid UTF-8 and plain text;
// whoever shows it renders it as text. A body over MaxBody was not read by
// the content checks, so its preview finds personal data itself.
func Preview(raw []byte, v Verdict) string {
	out, ok := "", false
	if v.JSON && len(raw) <= MaxBody {
		out, ok = previewJSON(raw, v.PersonalData)
	}
	if !ok {
		out = previewText(raw, v)
	}
	return cut(strings.ToValidUTF8(out, "\uFFFD"), PreviewLimit)
}

func previewText(raw []byte, v Verdict) string {
	w := raw[:min(len(raw), textWindow)]
	for len(w) > 0 && len(w) < len(raw) && !utf8.RuneStart(raw[len(w)]) {
		w = w[:len(w)-1] // do not split a rune at the window's end
	}
	s := string(w)
	var spans []Span
	if v.JSON || len(raw) > MaxBody {
		// The verdict's spans do not address this text.
		personalData(s, func(kind string, start, end int) {
			spans = append(spans, Span{Kind: kind, Start: start, End: end})
		})
	} else {
		spans = v.PersonalData
	}
	return redact(mask(s, spans))
}

// previewJSON renders the body compactly until it has more than PreviewLimit
// runes; false when raw is not the JSON Inspect read.
func previewJSON(raw []byte, spans []Span) (string, bool) {
	byUnit := map[int][]Span{}
	for _, sp := range spans {
		byUnit[sp.Unit] = append(byUnit[sp.Unit], sp)
	}
	w := newWalker(raw)
	b := make([]byte, 0, 4*PreviewLimit+64)
	// More than 4 bytes a rune past the limit is more than the limit.
	for len(b) <= 4*PreviewLimit {
		t, err := w.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", false
		}
		if t.sep != 0 {
			b = append(b, t.sep)
		}
		switch {
		case t.delim != 0:
			b = append(b, t.delim)
		case t.key:
			b = appendString(b, redact(*t.str))
		case w.inSecret():
			b = appendString(b, redacted)
		case t.str != nil:
			b = appendString(b, redact(mask(*t.str, byUnit[t.unit])))
		default:
			b = append(b, t.lit...)
		}
	}
	return string(b), true
}

// inSecret: the current value sits, at any depth, under a secret key.
func (w *walker) inSecret() bool {
	for i := range w.frames {
		f := &w.frames[i]
		if f.array {
			continue
		}
		if f.norm == "" {
			f.norm = normalKey(f.key)
		}
		if secretKey(f.norm) {
			return true
		}
	}
	return false
}

// mask replaces each span of s: a card keeps its last four digits (and its
// separators), anything else becomes ***.
func mask(s string, spans []Span) string {
	if len(spans) == 0 {
		return s
	}
	spans = slices.Clone(spans)
	slices.SortFunc(spans, func(a, b Span) int { return a.Start - b.Start })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		start, end := max(sp.Start, last), min(sp.End, len(s))
		if start >= end {
			continue
		}
		b.WriteString(s[last:start])
		if sp.Kind == kindCard {
			b.WriteString(maskCard(s[start:end]))
		} else {
			b.WriteString("***")
		}
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

func maskCard(s string) string {
	keep := 4
	out := []byte(s)
	for i := len(out) - 1; i >= 0; i-- {
		if !isDigit(out[i]) {
			continue
		}
		if keep > 0 {
			keep--
			continue
		}
		out[i] = '*'
	}
	return string(out)
}

// appendString writes s as a JSON string without HTML escaping (the preview
// is text, and `<` reads better than \u003c).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// cut keeps the first n runes of s.
func cut(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
