package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// AddressingFields are the JSON keys whose values are addresses (who sends,
// who receives, where to call), not content: the personal-data, URL and
// base64 checks skip their string values (RULINGS "Guard:": not at
// addressing fields). Outbound URLs among them are held by the egress address
// rule where they are saved and dialled. Keys compare without case, `_` or
// `-`, so the proto names (`from_user_email`) match too. The injection and
// script checks still read them.
var AddressingFields = []string{
	// people
	"fromUserEmail", "toUserEmail", "peerUserEmail", "requesterEmail", "email",
	// instances
	"fromInstanceUrl", "peerInstanceUrl", "externalInstanceUrl", "originInstanceUrl", "callerInstanceUrl",
	"baseUrl", "hubUrl",
	// endpoints the receiver calls back
	"callbackUrl", "endpointUrl", "healthCheckUrl", "widgetResponseUrl", "webhookUrl",
}

var addressing = func() map[string]bool {
	m := make(map[string]bool, len(AddressingFields))
	for _, k := range AddressingFields {
		m[normalKey(k)] = true
	}
	return m
}()

// normalKey lowercases a key and drops `_`, `-` and spaces.
func normalKey(k string) string {
	var b strings.Builder
	b.Grow(len(k))
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_' || c == '-' || c == ' ':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// maxDepth bounds the walk's stack; a deeper body is inspected as text.
const maxDepth = 256

// walker reads one JSON value token by token, keeping where each token sits.
// Inspect and Preview both walk with it, so a string's Unit is the same in
// both.
type walker struct {
	dec      *json.Decoder
	frames   []frame
	units    int
	finished bool // the top-level value is complete
}

type frame struct {
	array   bool
	wantKey bool   // object: the next token is a key (or the close)
	key     string // object: the current member's key
	norm    string // normalKey(key), computed when first needed
	n       int    // members (object) or elements (array) begun so far
}

// token is one JSON token. str is set for strings (keys and values); lit
// for numbers, true, false and null; delim for {}[].
type token struct {
	str   *string
	lit   string
	delim byte
	key   bool
	unit  int  // with str: the string's position among all strings
	sep   byte // what goes before it in compact JSON: ',' ':' or 0
}

func newWalker(raw []byte) *walker {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return &walker{dec: d, frames: make([]frame, 0, 8)}
}

var errTooDeep = errors.New("guard: JSON nests too deep")

func (w *walker) next() (token, error) {
	if w.finished {
		return token{}, io.EOF // one value only; done checks for trailing data
	}
	tok, err := w.dec.Token()
	if err != nil {
		return token{}, err
	}
	var t token
	top := w.top()
	if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
		w.frames = w.frames[:len(w.frames)-1]
		w.valueDone()
		t.delim = byte(d)
		return t, nil
	}
	if top != nil && top.wantKey {
		s, _ := tok.(string) // the decoder only gives a string here
		if top.n > 0 {
			t.sep = ','
		}
		top.n++
		top.key, top.norm, top.wantKey = s, "", false
		t.str, t.key, t.unit = &s, true, w.units
		w.units++
		return t, nil
	}
	// A value: in an array it is the next element, in an object it follows its key.
	if top != nil {
		if top.array {
			if top.n > 0 {
				t.sep = ','
			}
			top.n++
		} else {
			t.sep = ':'
		}
	}
	switch x := tok.(type) {
	case json.Delim:
		if len(w.frames) >= maxDepth {
			return token{}, errTooDeep
		}
		w.frames = append(w.frames, frame{array: x == '[', wantKey: x == '{'})
		t.delim = byte(x)
		return t, nil
	case string:
		t.str, t.unit = &x, w.units
		w.units++
	case json.Number:
		t.lit = string(x)
	case bool:
		t.lit = strconv.FormatBool(x)
	case nil:
		t.lit = "null"
	}
	w.valueDone()
	return t, nil
}

// valueDone: the enclosing object expects its next key; at the top the
// value is complete. The key stays readable until the next one replaces it.
func (w *walker) valueDone() {
	top := w.top()
	switch {
	case top == nil:
		w.finished = true
	case !top.array:
		top.wantKey = true
	}
}

func (w *walker) top() *frame {
	if len(w.frames) == 0 {
		return nil
	}
	return &w.frames[len(w.frames)-1]
}

// done reports whether the walk ended at the end of exactly one value.
func (w *walker) done(err error) bool {
	if !errors.Is(err, io.EOF) || !w.finished {
		return false
	}
	_, err = w.dec.Token()
	return errors.Is(err, io.EOF)
}

// addressing reports whether the current value sits under an addressing key
// (its own, or the nearest object key above an array of them).
func (w *walker) addressing() bool {
	for i := len(w.frames) - 1; i >= 0; i-- {
		f := &w.frames[i]
		if f.array {
			continue
		}
		if f.norm == "" {
			f.norm = normalKey(f.key)
		}
		return addressing[f.norm]
	}
	return false
}

// plainKey is a key shown in a Field or block reason: a short identifier
// that is not one of our credentials; anything else shows as `*`, so a
// reason never echoes what a sender put in a key.
var plainKey = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// field is the current token's path for people: `agents[2].description`.
func (w *walker) field() string {
	var b strings.Builder
	for _, f := range w.frames {
		if f.array {
			b.WriteString("[" + strconv.Itoa(f.n-1) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if plainKey.MatchString(f.key) && !credentialPrefixed(f.key) {
			b.WriteString(f.key)
		} else {
			b.WriteByte('*')
		}
	}
	if b.Len() == 0 {
		return "body"
	}
	return b.String()
}
