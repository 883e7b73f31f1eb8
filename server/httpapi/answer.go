package httpapi

import (
	"context"
	"net/http"
	"slices"

	"connectrpc.com/connect"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/render"
)

// publicAnswers are the procedures whose answer anyone may cache and read
// from any page: headers of the answer, set here rather than by the service,
// which knows no transport.
var publicAnswers = []string{switchboardv1connect.UpdateServiceListUpdatesProcedure}

// PublicAnswer marks an answer that any cache may keep for five minutes and
// any origin may read (the changelog, the OpenAPI description).
func PublicAnswer(h http.Header) {
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("Access-Control-Allow-Origin", "*")
}

// AnswerHeaders is the gateway's forward-response option that gives a
// successful answer its headers; put it before any option that writes the
// status.
func AnswerHeaders(ctx context.Context, w http.ResponseWriter, _ proto.Message) error {
	if name, ok := runtime.RPCMethod(ctx); ok && slices.Contains(publicAnswers, name) {
		PublicAnswer(w.Header())
	}
	return nil
}

// Answers is the Connect interceptor that does the same for Connect's answers.
func Answers() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			res, err := next(ctx, req)
			if err == nil && slices.Contains(publicAnswers, req.Spec().Procedure) {
				PublicAnswer(res.Header())
			}
			return res, err
		}
	})
}

// withSessionCookie lets a service's auth.StartSession and auth.EndSession
// reach this request's answer as the session cookie (Secure over TLS).
func withSessionCookie(ctx context.Context, w http.ResponseWriter, r *http.Request) context.Context {
	return auth.WithSessionSink(ctx, func(token string, maxAge int) {
		w.Header().Add("Set-Cookie", auth.Cookie(token, maxAge, r.TLS != nil).String())
	})
}

// RESTAnswers is the marshaler the gateway writes REST answers with: the
// REST rendering, each answer ending in a newline as the error bodies do, so
// that a terminal (the README's walkthrough) shows the next prompt on a line
// of its own. The renderings themselves (and their golden files) are
// render.RESTMarshaler's.
type RESTAnswers struct{ render.RESTMarshaler }

var _ runtime.Marshaler = RESTAnswers{}

// Marshal implements runtime.Marshaler.
func (m RESTAnswers) Marshal(v any) ([]byte, error) {
	b, err := m.RESTMarshaler.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
