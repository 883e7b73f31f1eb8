package network

import (
	"strings"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

// NotificationBody is the request's own refusal: a type outside the
// vocabulary (the boundary refuses it first) or a missing title.
func NotificationBody(typ, title string) error {
	if err := rules.CheckNotificationType(typ); err != nil {
		return err
	}
	if strings.TrimSpace(title) == "" {
		return apperr.Invalid("title is required")
	}
	return nil
}
