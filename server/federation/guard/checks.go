package guard

import (
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// sep is what stands between the words of an injection phrase once
// collapseSeparators has turned every run of separators into one space.
const sep = ` `

// words joins alternatives into a group.
func words(ws ...string) string { return `(?:` + strings.Join(ws, "|") + `)` }

// injectionByAnchor matches the prompt-injection phrases at the start of
// their input (a window of collapsed text beginning at an anchor word), one
// small regexp per anchor word: a phrase can only start where its first
// word does, so the regexps run on short windows at those places rather
// than over the whole text (one pattern over a megabyte costs seconds;
// scanning for anchors, milliseconds). Each phrase tells a model to drop its
// instructions, take another identity, or leak its prompt; ordinary
// federation text (tasks, agent descriptions) does not say these things, and
// a false match blocks, so the phrases stay specific: "ignore the rules"
// alone does not match, "ignore all previous instructions" does.
//
// It is compiled on first use (sync.OnceValue): ~3 ms of every start.
var injectionByAnchor = sync.OnceValue(func() map[string]*regexp.Regexp {
	// "my" and "our" are not here: "ignore my previous instructions" is a
	// person changing their own request.
	filler := words("the", "any", "of", "these", "those", "and", "in", "its")
	strong := words("all", "previous", "prior", "above", "earlier", "preceding", "foregoing", "system",
		"initial", "original", "developer", "your")
	noun := words(`instructions?`, `prompts?`, "rules", `directives?`, "guidelines", "guardrails", "context",
		"commands", "policies", "restrictions", "programming")
	type phrase struct {
		first []string // its possible first words (the anchors), lower case
		rest  string   // the pattern after the first word
	}
	phrases := []phrase{
		// ignore all previous instructions; disregard your system prompt
		{[]string{"ignore", "disregard", "override", "bypass"},
			sep + `(?:` + filler + sep + `){0,3}` + strong + sep + `(?:` + words(filler, strong) + sep + `){0,4}` + noun + `\b`},
		// forget everything above; forget all previous (not "forget your
		// instructions", which people say to each other)
		{[]string{"ignore", "disregard", "forget"}, sep + words("everything", "all") + sep +
			words("above", "before"+sep+"this", "prior", `previous(?:ly)?`, "you"+sep+"were"+sep+"told") + `\b`},
		// you are now DAN; you are now in developer mode. DAN must be upper
		// case: "you are now Dan's contact" is an introduction.
		{[]string{"you"}, sep + `are` + sep + `now` + sep + `(?:(?-i:DAN)\b|` + words("jailbroken", "unrestricted", "unfiltered", "uncensored") +
			`\b|in` + sep + words("developer", "dan", "god", "jailbreak") + sep + `mode\b)`},
		{[]string{"act", "pretend", "roleplay"}, sep + `(?:to` + sep + `be` + sep + `)?as` + sep +
			`(?:(?-i:DAN)\b|an?` + sep + words("unrestricted", "unfiltered", "jailbroken") + `\b)`},
		// "developer mode on" is a browser setting; DAN and jailbreak modes are not
		{[]string{"dan", "jailbreak"}, sep + `mode` + sep + words("enabled", "activated", "on") + `\b`},
		// show me your system prompt
		{[]string{"reveal", "print", "show", "output", "repeat", "leak", "dump", "display"}, sep + `(?:me` + sep + `)?` +
			words("your", "the") + sep + `(?:` + words("full", "entire", "complete", "original") + sep + `)?` +
			words("system", "hidden", "secret", "initial", "developer") + sep + words("prompt", "instructions") + `\b`},
		// chat-template role markers smuggled into text (underscores are
		// separators by now)
		{[]string{"<|"}, words("im start", "im end", "system", "endoftext", "start header id", "end header id", "eot id") + `\|>`},
		{[]string{"[inst]", "[/inst]", "<<sys>>", "<</sys>>"}, ``},
	}
	byAnchor := map[string][]string{}
	for _, p := range phrases {
		for _, a := range p.first {
			byAnchor[a] = append(byAnchor[a], regexp.QuoteMeta(a)+p.rest)
		}
	}
	m := map[string]*regexp.Regexp{}
	for a, res := range byAnchor {
		m[a] = regexp.MustCompile(`(?i)^(?:` + strings.Join(res, "|") + `)`)
	}
	return m
})

// injectionAnchors lists injectionByAnchor's keys in a fixed order.
var injectionAnchors = sync.OnceValue(func() []string {
	as := make([]string, 0, len(injectionByAnchor()))
	for a := range injectionByAnchor() {
		as = append(as, a)
	}
	slices.Sort(as)
	return as
})

// injectionWindow is longer than the longest phrase in collapsed text
// (90 bytes: "disregard these those these preceding foregoing …
// restrictions"), so a window never ends inside a match.
const injectionWindow = 128

// promptInjection: lower is asciiLower(s). Collapsing never makes an anchor
// (anchors hold no separators), so text without one is done at once.
func promptInjection(s, lower string) bool {
	anchors, byAnchor := injectionAnchors(), injectionByAnchor()
	if !slices.ContainsFunc(anchors, func(a string) bool { return strings.Contains(lower, a) }) {
		return false
	}
	text := collapseSeparators(s)
	lower = asciiLower(text)
	for _, a := range anchors {
		word := isLetter(a[0])
		for off := 0; ; {
			i := strings.Index(lower[off:], a)
			if i < 0 {
				break
			}
			i += off
			off = i + 1
			if word && i > 0 && (isLetter(lower[i-1]) || isDigit(lower[i-1])) {
				continue
			}
			if byAnchor[a].MatchString(text[i:min(len(text), i+injectionWindow)]) {
				return true
			}
		}
	}
	return false
}

// collapseSeparators turns each run of whitespace (Unicode spaces too),
// invisible format characters (zero-width spaces, soft hyphens) and the
// punctuation people put between words to dodge a match (_ * . -) into one
// space, so "IGNORE \u200b ALL_previous" reads "IGNORE ALL previous".
func collapseSeparators(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case ' ', '\t', '\n', '\f', '\r', '\v', '_', '*', '.', '-':
				if !space {
					b.WriteByte(' ')
				}
				space = true
			default:
				b.WriteByte(c)
				space = false
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError && (unicode.Is(unicode.Z, r) || unicode.Is(unicode.Cf, r)) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
		} else {
			b.WriteString(s[i : i+n])
			space = false
		}
		i += n
	}
	return b.String()
}

// asciiLower lowers ASCII letters only, so offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// The script checks: a script element, a script URL, an inline event handler
// inside a tag, and elements that embed another document.
var (
	scriptTagRe     = regexp.MustCompile(`(?i)<\s*/?\s*script\b`)
	eventHandlerRe  = regexp.MustCompile(`(?i)<[a-z][^>]*?[\s/"'](?:on` + handlerNames + `)\s*=`)
	embeddedFrameRe = regexp.MustCompile(`(?i)<\s*(?:iframe|frame|object|embed)\b`)
)

// handlerNames are the DOM event names, so "one=1" after a `<` is not taken
// for a handler.
const handlerNames = `(?:abort|animation[a-z]*|auxclick|before[a-z]+|begin|blur|cancel|canplay[a-z]*|change|click|close|contextmenu|` +
	`copy|cuechange|cut|dblclick|drag[a-z]*|drop|durationchange|end|ended|error|focus[a-z]*|formdata|hashchange|input|invalid|` +
	`key[a-z]+|load[a-z]*|message[a-z]*|mouse[a-z]+|offline|online|page[a-z]+|paste|pause|play[a-z]*|pointer[a-z]+|popstate|` +
	`progress|ratechange|repeat|reset|resize|scroll[a-z]*|search|seek[a-z]+|select[a-z]*|show|stalled|storage|submit|suspend|` +
	`timeupdate|toggle|touch[a-z]+|transition[a-z]+|unload|volumechange|waiting|wheel)`

// scriptInjection: lower is asciiLower(s); the regexps run only on text
// that has a `<`.
func scriptInjection(s, lower string, found func(flag)) {
	if scriptURL(lower) {
		found(flagScriptURL)
	}
	if strings.IndexByte(s, '<') < 0 {
		return
	}
	if strings.Contains(lower, "script") && scriptTagRe.MatchString(s) {
		found(flagScriptTag)
	}
	if strings.Contains(lower, "on") && eventHandlerRe.MatchString(s) {
		found(flagEventHandler)
	}
	if embeddedFrameRe.MatchString(s) {
		found(flagEmbeddedFrame)
	}
}

// scriptURL finds `javascript:` or `vbscript:` with ASCII whitespace or
// control characters anywhere between the letters and before the colon,
// which browsers drop ("java\tscript:"). It reads back from each colon.
func scriptURL(lower string) bool {
	for off := 0; ; {
		i := strings.IndexByte(lower[off:], ':')
		if i < 0 {
			return false
		}
		i += off
		off = i + 1
		j, ok := wordBefore(lower, i, "script")
		if !ok {
			continue
		}
		if _, ok := wordBefore(lower, j, "java"); ok {
			return true
		}
		if _, ok := wordBefore(lower, j, "vb"); ok {
			return true
		}
	}
}

// wordBefore matches word ending at end, letting bytes up to 0x20 stand
// before each letter; it answers where the word starts.
func wordBefore(s string, end int, word string) (int, bool) {
	j := end
	for k := len(word) - 1; k >= 0; k-- {
		for j > 0 && s[j-1] <= 0x20 {
			j--
		}
		if j == 0 || s[j-1] != word[k] {
			return 0, false
		}
		j--
	}
	return j, true
}

// Personal data kinds (Span.Kind).
const (
	kindCard  = "card_number"
	kindID    = "id_number"
	kindPhone = "phone"
	kindEmail = "email"
)

var (
	// Card numbers: 13–19 digits in one run, in four-digit groups (Visa,
	// Mastercard, …) or 4-6-5/4-6-4 (Amex, Diners), separated by spaces or dashes.
	cardRe = regexp.MustCompile(`\b(?:\d{13,19}|\d{4}[ -]\d{4}[ -]\d{4}[ -]\d{1,7}|\d{4}[ -]\d{6}[ -]\d{4,5})\b`)
	// US SSN (and ITIN) in their dashed form; the nine bare digits are too common to mean one.
	ssnRe = regexp.MustCompile(`\b(\d{3})-(\d{2})-(\d{4})\b`)
	// UK National Insurance number: two prefix letters (D, F, I, Q, U, V never; O not second), six digits, A–D.
	ninoRe = regexp.MustCompile(`\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b`)
	// Phones: international (+ and 8–15 digits) or North American with
	// separators ((415) 555-0132, 415-555-0132, 415.555.0132). Bare digit
	// runs are ids and amounts far more often than phones.
	// The international form must end where the number ends (the engine then
	// gives back groups rather than swallow the next number); phoneLike trims
	// the character that ends it.
	phoneRe = regexp.MustCompile(`\+[1-9]\d{0,2}(?:[ .-]?\(?\d{1,4}\)?){2,5}(?:[^0-9A-Za-z_\-]|$)|\(\d{3}\) ?\d{3}[ .-]\d{4}\b|\b\d{3}[.-]\d{3}[.-]\d{4}\b`)
	emailRe = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b`)
)

// personalData reports each piece of personal data in free text.
func personalData(s string, found func(kind string, start, end int)) {
	if digits := digitCount(s); digits >= 6 {
		for _, m := range findAll(cardRe, s, digits >= 13) {
			if d := digitsOf(s[m[0]:m[1]]); len(d) >= 13 && len(d) <= 19 && cardBrand(d) && luhn(d) {
				found(kindCard, m[0], m[1])
			}
		}
		for _, m := range findAllSubmatch(ssnRe, s, strings.IndexByte(s, '-') >= 0) {
			area, group, serial := s[m[2]:m[3]], s[m[4]:m[5]], s[m[6]:m[7]]
			if area != "000" && area != "666" && group != "00" && serial != "0000" && !dashedAround(s, m[0], m[1]) {
				found(kindID, m[0], m[1])
			}
		}
		for _, m := range ninoRe.FindAllStringIndex(s, -1) {
			if p := s[m[0] : m[0]+2]; p != "BG" && p != "GB" && p != "NK" && p != "KN" && p != "TN" && p != "NT" && p != "ZZ" {
				found(kindID, m[0], m[1])
			}
		}
		for _, m := range findAll(phoneRe, s, strings.ContainsAny(s, "+(-.")) {
			for m[1] > m[0] && !isDigit(s[m[1]-1]) && s[m[1]-1] != ')' {
				m[1]--
			}
			if phoneLike(s, m[0], m[1]) {
				found(kindPhone, m[0], m[1])
			}
		}
	}
	if strings.IndexByte(s, '@') >= 0 {
		for _, m := range emailRe.FindAllStringIndex(s, -1) {
			if !inURLAuthority(s, m[0]) {
				found(kindEmail, m[0], m[1])
			}
		}
	}
}

// inURLAuthority: the match is the `user@host` of a URL
// (https://trusted.example@evil.example), which the URL check flags, not an
// address of a person.
func inURLAuthority(s string, start int) bool {
	i := strings.LastIndexAny(s[:start], " \t\r\n\"'<>(")
	return strings.Contains(s[i+1:start], "://")
}

func findAll(re *regexp.Regexp, s string, worth bool) [][]int {
	if !worth {
		return nil
	}
	return re.FindAllStringIndex(s, -1)
}

func findAllSubmatch(re *regexp.Regexp, s string, worth bool) [][]int {
	if !worth {
		return nil
	}
	return re.FindAllStringSubmatchIndex(s, -1)
}

func digitCount(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			n++
		}
	}
	return n
}

func digitsOf(s string) string {
	return strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// luhn is the payment cards' check digit (ISO/IEC 7812).
func luhn(d string) bool {
	sum := 0
	for i := range len(d) {
		n := int(d[len(d)-1-i] - '0')
		if i%2 == 1 {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

// cardBrand: the issuer prefixes of the card networks in use (Visa,
// Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro), so that a
// Luhn-valid order number or timestamp (one in ten is) is not a card.
func cardBrand(d string) bool {
	p2, _ := strconv.Atoi(d[:2])
	p3, _ := strconv.Atoi(d[:3])
	p4, _ := strconv.Atoi(d[:4])
	switch {
	case d[0] == '4': // Visa
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
	case p2 == 34 || p2 == 37: // Amex
	case p4 == 6011, p2 == 65, p3 >= 644 && p3 <= 649: // Discover
	case p4 >= 3528 && p4 <= 3589: // JCB
	case p3 >= 300 && p3 <= 305, p2 == 36, p2 == 38: // Diners
	case p2 == 62: // UnionPay
	case p2 == 50, p2 >= 56 && p2 <= 58, p2 == 63, p2 == 67: // Maestro
	default:
		return false
	}
	return true
}

// dashedAround: a longer dash-and-digit run (a date, a part number) holds the
// match, not an SSN.
func dashedAround(s string, start, end int) bool {
	before := start >= 2 && s[start-1] == '-' && isDigit(s[start-2])
	after := end+1 < len(s) && s[end] == '-' && isDigit(s[end+1])
	return before || after
}

// phoneLike checks what the pattern cannot: the digit count of an
// international number, and that no longer run of digits, dots or dashes
// (a version, an address, an id) holds the match.
func phoneLike(s string, start, end int) bool {
	if start > 0 {
		if c := s[start-1]; isDigit(c) || isLetter(c) || c == '.' || c == '-' || c == '+' || c == '/' {
			return false
		}
	}
	if end < len(s) {
		if c := s[end]; isDigit(c) || isLetter(c) || c == '-' || (c == '.' && end+1 < len(s) && isDigit(s[end+1])) {
			return false
		}
	}
	if s[start] == '+' {
		n := len(digitsOf(s[start:end]))
		return n >= 8 && n <= 15
	}
	return true
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

var (
	dataURLRe = regexp.MustCompile(`(?i)\bdata:[a-z]+/[a-z0-9.+-]+[;,]`)
	fileURLRe = regexp.MustCompile(`(?i)\bfile:/`)
)

// Shorteners hide where a link goes; a federation payload has no need of them.
var shorteners = map[string]bool{
	"bit.ly": true, "tinyurl.com": true, "t.co": true, "goo.gl": true, "ow.ly": true, "is.gd": true,
	"buff.ly": true, "rebrand.ly": true, "cutt.ly": true, "shorturl.at": true, "tiny.cc": true, "rb.gy": true,
	"s.id": true, "v.gd": true, "t.ly": true, "bl.ink": true, "lnkd.in": true, "shorte.st": true, "adf.ly": true,
}

// maliciousURLs flags the links in free text whose address hides where they
// go or points where a federation payload has no business pointing: an IP
// literal host (any spelling a resolver reads), credentials before the host
// (also the `https://trusted.example@evil.example` trick), percent-encoded or
// internationalized (punycode, homograph) hosts, link shorteners, and data:
// and file: URLs. Only absolute URLs with a scheme count.
func maliciousURLs(s, lower string, found func(flag)) {
	for off := 0; ; {
		i := strings.Index(lower[off:], "://")
		if i < 0 {
			break
		}
		i += off
		off = i + 3
		k := i
		for k > 0 && isLetter(lower[k-1]) {
			k--
		}
		switch lower[k:i] {
		case "http", "https", "ftp", "ws", "wss":
		default:
			continue
		}
		end := off
		for end < len(s) && !strings.ContainsRune(" \t\r\n\f\v\"'<>`\\{}|^", rune(s[end])) && s[end] >= 0x20 {
			end++
		}
		urlFlags(s[k:end], found)
		off = end
	}
	if strings.Contains(lower, "data:") && dataURLRe.MatchString(s) {
		found(flagURLData)
	}
	if strings.Contains(lower, "file:/") && fileURLRe.MatchString(s) {
		found(flagURLFile)
	}
}

func urlFlags(u string, found func(flag)) {
	_, rest, _ := strings.Cut(u, "://")
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	host := authority
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		found(flagURLCredentials)
		host = authority[i+1:]
	}
	if strings.HasPrefix(host, "[") {
		found(flagURLIPHost)
		return
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if strings.IndexByte(host, '%') >= 0 {
		found(flagURLEncodedHost)
	}
	if _, err := netip.ParseAddr(host); err == nil || numericHost(host) {
		found(flagURLIPHost)
	}
	if strings.HasPrefix(host, "xn--") || strings.Contains(host, ".xn--") || !isASCII(host) {
		found(flagURLIDNHost)
	}
	if shorteners[host] || shorteners[strings.TrimPrefix(host, "www.")] {
		found(flagURLShortener)
	}
}

// numericHost reads a host as inet_aton does: one to four dot-separated
// parts, each decimal, octal (leading 0) or hex (0x), so 2130706433,
// 0x7f000001 and 127.1 are IP literals too.
func numericHost(h string) bool {
	parts := strings.Split(h, ".")
	if h == "" || len(parts) > 4 {
		return false
	}
	for _, p := range parts {
		base, digits := 10, p
		switch {
		case strings.HasPrefix(p, "0x"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" && base != 16 {
			return false
		}
		if digits != "" {
			if _, err := strconv.ParseUint(digits, base, 32); err != nil {
				return false
			}
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// minBase64Run is the shortest run of base64 characters taken for an encoded
// payload: 256 characters (192 bytes decoded), past every credential, hash
// and signature a federation body carries (a 32-byte token is 52 base32
// characters, a SHA-256 hex 64) and past any word.
const minBase64Run = 256

// longBase64 finds a run of at least minBase64Run characters of the base64
// alphabets (standard or URL-safe) mixing at least two of upper case, lower
// case and digits, so a row of one letter is not taken for data.
func longBase64(s string) bool {
	if len(s) < minBase64Run {
		return false
	}
	run, classes := 0, 0
	for i := 0; i <= len(s); i++ {
		var c byte
		if i < len(s) {
			c = s[i]
		}
		switch {
		case 'A' <= c && c <= 'Z':
			classes |= 1
		case 'a' <= c && c <= 'z':
			classes |= 2
		case '0' <= c && c <= '9':
			classes |= 4
		case c == '+' || c == '/' || c == '-' || c == '_':
		default:
			if run >= minBase64Run && classes&(classes-1) != 0 { // two classes or more
				return true
			}
			run, classes = 0, 0
			continue
		}
		run++
	}
	return false
}
