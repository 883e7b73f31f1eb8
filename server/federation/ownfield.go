package federation

import (
	"errors"
	"strings"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

// OwnField rewords this instance's answer to another instance's refusal
// ("… refused: <field>…") of a field this instance filled in itself (a
// join's baseUrl, a handshake's fromInstanceUrl: its --public-url), so that
// the person reading it is not told of a field they never sent (issue 31):
// the field becomes name. Any other error is returned as it is.
func OwnField(err error, field, name string) error {
	var e *apperr.Error
	if !errors.As(err, &e) {
		return err
	}
	at := strings.Index(e.Message, "refused: "+field)
	if at < 0 {
		return err
	}
	end := at + len("refused: ") + len(field)
	if end < len(e.Message) && !strings.ContainsRune(" :", rune(e.Message[end])) {
		return err // another field whose name starts so
	}
	out := *e
	out.Message = e.Message[:at] + "refused " + name + e.Message[end:]
	return &out
}
