package network

import (
	"strings"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

// NotificationBody is the request's own refusal: a type outside the
// vocabulary (the boundary refuses it first) or a missing title.
func NotificationBody(typ, title string) error {
	if err := rules.CheckNotificationType(typ); err != nil {
		return err
	}
	// A new learning's notification is written here for the account
	// itself (RULINGS, Reconciliation 9); no peer sends or receives one.
	if typ == string(vocab.NotificationTypeLearningGenerated) {
		return apperr.Invalid("type %s is a local notification: it is not sent between instances", typ)
	}
	if strings.TrimSpace(title) == "" {
		return apperr.Invalid("title is required")
	}
	return nil
}
