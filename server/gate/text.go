package gate

import (
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/input"
)

// readHeaders are the request headers the server reads as text; they must be
// text like everything else (docs/decisions.md, "Input at the boundary").
// net/http already refuses control characters (NUL among them) in headers.
var readHeaders = []string{
	"Authorization", "Cookie", "Origin", "Last-Event-ID", "X-Agent-Name", "Idempotency-Key", "X-Request-Id",
}

// checkText refuses a request whose path, query or read headers are not text
// (valid UTF-8 without NUL), before any credential or handler sees them.
func checkText(r *http.Request) error {
	if !input.Text(r.URL.Path) {
		return input.NotText("the path")
	}
	// Values the query parser cannot decode are left to it; the ones it can
	// decode must be text.
	q, _ := url.ParseQuery(r.URL.RawQuery)
	for key, values := range q {
		if !input.Text(key) {
			return input.NotText("a query parameter name")
		}
		for _, v := range values {
			if !input.Text(v) {
				return input.NotText("query parameter " + key)
			}
		}
	}
	for _, name := range readHeaders {
		for _, v := range r.Header.Values(name) {
			if !input.Text(v) {
				return input.NotText("header " + name)
			}
		}
	}
	return nil
}

// checkPath applies the contract's field rules to a REST route's path
// parameters (the body and query are checked as they are decoded), so an id
// over its length is refused as it is over Connect.
func checkPath(p *contract.Procedure, params map[string]string) error {
	if len(params) == 0 {
		return nil
	}
	m := dynamicpb.NewMessage(p.Descriptor.Input())
	for name, v := range params {
		setString(m, strings.Split(name, "."), v)
	}
	return input.Check(m)
}

// setString sets the string field at path; other kinds are left to the
// gateway's own conversion.
func setString(m protoreflect.Message, path []string, v string) {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(path[0]))
	if fd == nil || fd.IsList() || fd.IsMap() {
		return
	}
	if len(path) > 1 {
		if fd.Message() != nil {
			setString(m.Mutable(fd).Message(), path[1:], v)
		}
		return
	}
	if fd.Kind() == protoreflect.StringKind {
		m.Set(fd, protoreflect.ValueOfString(v))
	}
}
