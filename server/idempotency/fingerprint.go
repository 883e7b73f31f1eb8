package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

// fingerprint is what makes a retry the same request: the procedure, the
// method, path and query it was sent to, its content type and encoding, and
// its body, canonical when it is JSON (white space and key order do not
// count), as sent otherwise (binary protobuf, compressed bodies). Paths are
// in it because REST carries ids there; the transport is in it because the
// stored answer is in that transport's form.
func fingerprint(procedure string, r *http.Request, body []byte) string {
	media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	encoding := r.Header.Get("Content-Encoding")
	h := sha256.New()
	for _, part := range []string{procedure, r.Method, r.URL.EscapedPath(), r.URL.Query().Encode(), media, encoding} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	if encoding == "" && isJSON(media) {
		body = canonicalJSON(body)
	}
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func isJSON(media string) bool {
	return media == "" || media == "application/json" || strings.HasSuffix(media, "+json")
}

// canonicalJSON re-encodes one JSON value with sorted keys and no white
// space, keeping numbers as written. Anything else (not JSON, trailing data,
// invalid UTF-8, which re-encoding would alter) is taken as sent.
func canonicalJSON(b []byte) []byte {
	if !utf8.Valid(b) {
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return b
	}
	if _, err := dec.Token(); err != io.EOF {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}
