package gate

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/input"
)

// RULINGS "Input at the boundary": paths, query parameters and the headers
// the server reads are text, refused by the gate before anything else.
func TestCheckText(t *testing.T) {
	for _, c := range []struct {
		name, target string
		header       [2]string
		want         string
	}{
		{"plain", "/api/v2/kanban?status=todo", [2]string{}, ""},
		{"NUL in the path", "/api/v2/kanban/a%00b", [2]string{}, "the path must be valid UTF-8 without NUL characters"},
		{"bad UTF-8 in the path", "/api/v2/kanban/%ff", [2]string{}, "the path must be valid UTF-8 without NUL characters"},
		{"bad UTF-8 in a query value", "/api/username/check?username=%ff%fe", [2]string{}, "query parameter username must be valid UTF-8 without NUL characters"},
		{"NUL in a query value", "/api/v2/kanban?search=a%00", [2]string{}, "query parameter search must be valid UTF-8 without NUL characters"},
		{"bad UTF-8 in a query name", "/api/v2/kanban?%ff=1", [2]string{}, "a query parameter name must be valid UTF-8 without NUL characters"},
		{"bad UTF-8 in X-Agent-Name", "/api/v2/shared-chat", [2]string{"X-Agent-Name", "a\xff"}, "header X-Agent-Name must be valid UTF-8 without NUL characters"},
		{"bad UTF-8 in Last-Event-ID", "/api/v2/shared-chat/stream", [2]string{"Last-Event-ID", "\xfe"}, "header Last-Event-ID must be valid UTF-8 without NUL characters"},
		{"an unread header is not checked", "/api/v2/kanban", [2]string{"User-Agent", "\xff"}, ""},
	} {
		r := request(t, c.target)
		if c.header[0] != "" {
			r.Header.Set(c.header[0], c.header[1])
		}
		err := checkText(r)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func request(t testing.TB, target string) *http.Request {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("%q: %v", target, err)
	}
	return &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
}

// FuzzCheckText: any path and query the URL parser accepts either pass as
// text or are refused; the check never panics. Seeds live in testdata/fuzz/FuzzCheckText.
func FuzzCheckText(f *testing.F) {
	f.Add("/api/v2/kanban/x1?status=todo")
	f.Add("/api/v2/kanban/%00?q=%ff%fe")
	f.Add("/api/username/check?username=%C3%A9")
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.Parse(target)
		if err != nil {
			return
		}
		r := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
		if checkText(r) != nil {
			return
		}
		if !input.Text(u.Path) {
			t.Fatalf("%q: path %q passed", target, u.Path)
		}
		q, _ := url.ParseQuery(u.RawQuery)
		for k, vs := range q {
			if !input.Text(k) || !input.Text(strings.Join(vs, "")) {
				t.Fatalf("%q: query %q passed", target, k)
			}
		}
	})
}
