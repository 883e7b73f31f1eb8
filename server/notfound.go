package server

import (
	"net/http"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

func notFound(r *http.Request) error {
	return apperr.NotFound("no endpoint %s %s", r.Method, r.URL.Path)
}
