package kanban

import (
	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// cardText is who holds a card's text (title, description, summary, brief)
// once mutation m, by writer w, applies to before (nil for a new card).
func cardText(before *ent.Card, m *ent.CardMutation, w provenance.Mark) provenance.Mark {
	if before == nil {
		return w
	}
	opt := func(old *string, v string, set, cleared bool) provenance.Field {
		f := provenance.Field{Before: deref(old), After: deref(old), Set: set || cleared}
		if set {
			f.After = v
		} else if cleared {
			f.After = ""
		}
		return f
	}
	title, titleSet := m.Title()
	desc, descSet := m.Description()
	summary, summarySet := m.Summary()
	brief, briefSet := m.Brief()
	return provenance.Written(provenance.Read(string(before.TextBy), before.TextByRef), w,
		provenance.Field{Before: before.Title, After: title, Set: titleSet},
		opt(before.Description, desc, descSet, m.DescriptionCleared()),
		opt(before.Summary, summary, summarySet, m.SummaryCleared()),
		opt(before.Brief, brief, briefSet, m.BriefCleared()))
}

// setCardText records t as the writer of the card's text in m.
func setCardText(m *ent.CardMutation, t provenance.Mark) { provenance.SetText[card.TextBy](m, t) }

// checklistText is who holds a checklist item's text after writer w set it
// to text (old nil: a new item). A text sent again unchanged keeps its
// writer; a toggle is not a text change.
func checklistText(old *ent.ChecklistItem, text string, w provenance.Mark) provenance.Mark {
	if old == nil {
		return w
	}
	return provenance.Written(provenance.Read(string(old.TextBy), old.TextByRef), w,
		provenance.Field{Before: old.Text, After: text, Set: true})
}

// setChecklistText records t as the writer of an item's text in m.
func setChecklistText(m *ent.ChecklistItemMutation, t provenance.Mark) {
	provenance.SetText[checklistitem.TextBy](m, t)
}
