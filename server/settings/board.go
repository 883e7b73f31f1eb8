package settings

import (
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// fieldHiddenColumns is the setting's JSON name, as clearFields names it.
const fieldHiddenColumns = "hiddenBoardColumns"

// hiddenColumns is the row's hidden board columns, never nil (RPC [], REST []).
func hiddenColumns(row *ent.Setting) []string {
	if row.HiddenBoardColumns == nil {
		return []string{}
	}
	return row.HiddenBoardColumns
}

// applyHiddenColumns sets or empties the hidden board columns (the contract
// holds each to a card status, once); it answers the words of the activity
// entry, or "" when the request names neither.
func applyHiddenColumns(upd *ent.SettingUpdateOne, req *switchboardv1.UpdateSettingsRequest, c cleared, res *switchboardv1.UpdateSettingsResponse) string {
	switch {
	case len(req.GetHiddenBoardColumns()) > 0:
		cols := req.GetHiddenBoardColumns()
		upd.SetHiddenBoardColumns(cols)
		res.HiddenBoardColumns = cols
		return fieldHiddenColumns + "=" + strings.Join(cols, ",")
	case c.hiddenColumns:
		upd.SetHiddenBoardColumns([]string{})
		res.ClearFields = append(res.ClearFields, fieldHiddenColumns)
		return fieldHiddenColumns + " cleared"
	}
	return ""
}
