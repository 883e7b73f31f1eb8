// Package queue owns the operator's task queue: the lifecycle (rules.go, pure),
// the bridge to the board (bridge.go), the prompt optimizer (optimizer.go) and
// QueueService, which runs each change and all its side effects (activity,
// comms messages, board rows) in one transaction.
package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/queuecount"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/membership"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/provenance"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// maxTitle bounds an item's title.
const maxTitle = 500

// defaultAssistant names the assistant in comms messages until the operator names it.
const defaultAssistant = "assistant"

// Service implements QueueService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
	// LLM rewrites edited items for agents; nil means none is configured.
	LLM *llm.Client
}

// ItemMoved is published in the unit of work of every status change, after
// the item's row is written, so records that follow an item (a relay's state,
// told to its sender through the outbox; a store agent's run) change with it
// or not at all.
type ItemMoved struct {
	Item *ent.QueueItem
	// From is the status the item left.
	From string
}

// ItemRemoved is published in the unit of work that deletes an item, so
// records that outlive the item (A2A tasks, received relays) learn how it
// ended.
type ItemRemoved struct {
	Item *ent.QueueItem
	// Rejected is true for the operator's reject, false for a delete.
	Rejected bool
}

func (s *Service) load(ctx context.Context, c *ent.Client, userID, id string) (*ent.QueueItem, error) {
	it, err := c.QueueItem.Query().Where(queueitem.ID(id), queueitem.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("queue item %q not found", id)
	}
	return it, err
}

func parseMeta(raw string) map[string]any {
	m := map[string]any{}
	if raw != "" {
		_ = json.Unmarshal([]byte(raw), &m) // stored metadata was validated as an object
	}
	return m
}

func encodeMeta(m map[string]any) (string, error) {
	b, err := json.Marshal(m)
	return string(b), err
}

// validMeta checks supplied metadata is a JSON object.
func validMeta(raw *string) error {
	if raw == nil || *raw == "" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(*raw), &m); err != nil || m == nil {
		return apperr.Invalid("metadata must be a JSON object encoded as a string")
	}
	return nil
}

func cleanTitle(t string) (string, error) {
	t = strings.TrimSpace(t)
	if t == "" || utf8.RuneCountInString(t) > maxTitle {
		return "", apperr.Invalid("title is required (at most %d characters)", maxTitle)
	}
	return t, nil
}

// ListQueueItems pages the queue, newest first.
func (s *Service) ListQueueItems(ctx context.Context, req *switchboardv1.ListQueueItemsRequest) (*switchboardv1.ListQueueItemsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	f := &page.Filters[predicate.QueueItem]{Where: []predicate.QueueItem{queueitem.UserID(p.UserID)}}
	page.OneOf(f, "status", req.GetStatus(), Statuses, queueitem.StatusEQ)
	page.OneOf(f, "priority", req.GetPriority(), Priorities, queueitem.PriorityEQ)
	page.OneOf(f, "type", req.GetType(), Types, queueitem.TypeEQ)
	if f.Err != nil {
		return nil, f.Err
	}
	var total int
	if req.GetPriority() == "" && req.GetType() == "" {
		total, err = s.counted(ctx, p.UserID, req.GetStatus())
	} else {
		// COUNT(*) walks the (user_id, …) index; ent's Count names the id
		// column and makes SQLite read every row.
		total, err = s.DB.QueueItem.Query().Where(f.Where...).Aggregate(ent.Count()).Int(ctx)
	}
	if err != nil {
		return nil, err
	}
	items, err := s.readPage(ctx, f.Where, pg)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListQueueItemsResponse{
		Success: true,
		Data:    &switchboardv1.QueueItemPage{Items: items, Pagination: pg.Of(total, len(items))},
	}, nil
}

// counted is how many items the user has, in status when it is not empty,
// from the counters the database keeps (internal/db/counts.go).
func (s *Service) counted(ctx context.Context, userID, status string) (int, error) {
	where := []predicate.QueueCount{queuecount.UserID(userID)}
	if status != "" {
		where = append(where, queuecount.Status(status))
	}
	ns, err := s.DB.QueueCount.Query().Where(where...).Select(queuecount.FieldN).Ints(ctx)
	total := 0
	for _, n := range ns {
		total += n
	}
	return total, err
}

// GetQueueItem answers one item.
func (s *Service) GetQueueItem(ctx context.Context, req *switchboardv1.GetQueueItemRequest) (*switchboardv1.GetQueueItemResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	it, err := s.load(ctx, s.DB.Client, p.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetQueueItemResponse{Item: toProto(it)}, nil
}

// CreateQueueItem adds an item; the calling agent is its handler, so the
// capability gate passes (docs/decisions.md "Queue").
func (s *Service) CreateQueueItem(ctx context.Context, req *switchboardv1.CreateQueueItemRequest) (*switchboardv1.CreateQueueItemResponse, error) {
	out, err := s.CreateWith(ctx, req, nil)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateQueueItemResponse{Item: toProto(out)}, nil
}

// CreateWith creates an item as CreateQueueItem does and, when then is not
// nil, runs then in the same unit of work with the new item (an A2A task's
// record is written with its item or not at all).
func (s *Service) CreateWith(ctx context.Context, req *switchboardv1.CreateQueueItemRequest,
	then func(ctx context.Context, tx *db.Tx, it *ent.QueueItem) error) (*ent.QueueItem, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	d, err := checkOwn(ctx, p, req)
	if err != nil {
		return nil, err
	}
	var out *ent.QueueItem
	err = s.inTx(ctx, func(ctx context.Context, tx *db.Tx) error {
		out, err = s.insert(ctx, tx, p, d, then)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CreateIn creates p's item in tx as CreateWith does (the same checks,
// board card, events and activity), for a change that makes its items
// inside its own unit of work (an inbound webhook's delivery).
func (s *Service) CreateIn(ctx context.Context, tx *db.Tx, p *auth.Principal, req *switchboardv1.CreateQueueItemRequest) (*ent.QueueItem, error) {
	d, err := checkOwn(ctx, p, req)
	if err != nil {
		return nil, err
	}
	return s.insert(ctx, tx, p, d, nil)
}

// checkOwn checks a request to create one of p's own items.
func checkOwn(ctx context.Context, p *auth.Principal, req *switchboardv1.CreateQueueItemRequest) (draftOf, error) {
	title, err := cleanTitle(req.GetTitle())
	if err != nil {
		return draftOf{}, err
	}
	typ, prio := "task", "medium"
	if req.Type != nil {
		typ = req.GetType()
	}
	if req.Priority != nil {
		prio = req.GetPriority()
	}
	if err := apperr.OneOf("type", typ, Types); err != nil {
		return draftOf{}, err
	}
	if err := apperr.OneOf("priority", prio, Priorities); err != nil {
		return draftOf{}, err
	}
	if err := validMeta(req.Metadata); err != nil {
		return draftOf{}, err
	}
	source, err := askedBy(ctx, p, req.Source)
	if err != nil {
		return draftOf{}, err
	}
	return draftOf{req: req, title: title, typ: typ, prio: prio, source: source}, nil
}

// Foreign is who asked for an item from another instance (a relay of the
// operator network): the item waits for confirmation whatever the
// auto-approve setting (RULINGS: auto-approve never applies to another
// person's request), its taskOrigin is federation, and the requester and
// source instance are set.
type Foreign struct {
	RequesterEmail, RequesterName, SourceInstanceName string
	// ConnectionID is the connection it came through: the item's words are
	// that peer's (provenance).
	ConnectionID string
	// OffBoard keeps the item off the board (an invite relay's).
	OffBoard bool
}

// CreateForeign creates p's item from another instance's request in tx, as
// CreateWith does, with the item's own rules, board card, events and
// activity; then runs in the same unit of work.
func (s *Service) CreateForeign(ctx context.Context, tx *db.Tx, p *auth.Principal, req *switchboardv1.CreateQueueItemRequest, f Foreign,
	then func(ctx context.Context, tx *db.Tx, it *ent.QueueItem) error) (*ent.QueueItem, error) {
	title, err := cleanTitle(req.GetTitle())
	if err != nil {
		return nil, err
	}
	prio := "medium"
	if req.Priority != nil {
		prio = req.GetPriority()
	}
	if err := apperr.OneOf("priority", prio, Priorities); err != nil {
		return nil, err
	}
	if err := validMeta(req.Metadata); err != nil {
		return nil, err
	}
	return s.insert(ctx, tx, p, draftOf{req: req, title: title, typ: "task", prio: prio, source: req.Source, foreign: &f}, then)
}

// CreateHeld creates p's item in tx as CreateWith does, of the request's
// type, waiting for p's confirmation whatever the auto-approve setting: an
// invite to a project is p's to answer (server/groups). writer is who wrote
// its words.
func (s *Service) CreateHeld(ctx context.Context, tx *db.Tx, p *auth.Principal, req *switchboardv1.CreateQueueItemRequest,
	writer provenance.Mark) (*ent.QueueItem, error) {
	title, err := cleanTitle(req.GetTitle())
	if err != nil {
		return nil, err
	}
	typ, prio := req.GetType(), "medium"
	if req.Priority != nil {
		prio = req.GetPriority()
	}
	if err := apperr.OneOf("type", typ, Types); err != nil {
		return nil, err
	}
	if err := validMeta(req.Metadata); err != nil {
		return nil, err
	}
	return s.insert(provenance.With(ctx, writer), tx, p, draftOf{req: req, title: title, typ: typ, prio: prio,
		source: req.Source, held: true}, nil)
}

// draftOf is a checked request to create an item.
type draftOf struct {
	req              *switchboardv1.CreateQueueItemRequest
	title, typ, prio string
	source           *string
	foreign          *Foreign
	// held waits for confirmation whatever the auto-approve setting.
	held bool
	// subtaskOrder is a decomposition's child's position (decompose.go).
	subtaskOrder *int32
}

// insert writes a checked new item with its side effects in tx.
func (s *Service) insert(ctx context.Context, tx *db.Tx, p *auth.Principal, d draftOf,
	then func(ctx context.Context, tx *db.Tx, it *ent.QueueItem) error) (*ent.QueueItem, error) {
	req, title, typ, prio, source := d.req, d.title, d.typ, d.prio, d.source
	var out *ent.QueueItem
	err := func() error {
		if err := s.checkRefs(ctx, tx, p.UserID, req.CardId, req.DependsOn, req.ParentTaskId); err != nil {
			return err
		}
		// A relay's project is resolved to the recipient's mirror by the
		// network's intake (relay v2.3.2), whatever the role it joined in.
		if d.foreign == nil {
			if err := checkProject(ctx, tx, p.UserID, req.ProjectId, nil); err != nil {
				return err
			}
		}
		set := settingsFor(p.UserID)
		row, _, err := set.get(ctx, tx)
		if err != nil {
			return err
		}
		status := queueitem.StatusPendingConfirmation
		if row.QueueAutoApprove && d.foreign == nil && !d.held {
			status = queueitem.StatusReady
		}
		// The board first, so the item is inserted once, already linked.
		now := s.Now().UTC()
		writer := provenance.Of(ctx)
		if f := d.foreign; f != nil {
			writer = provenance.Mark{Kind: provenance.Peer, Ref: f.ConnectionID}
		}
		draft := &ent.QueueItem{ID: ids.New(), Title: title, Description: req.Description,
			Priority: queueitem.Priority(prio), ProjectID: req.ProjectId, CardID: req.CardId}
		setWriter(draft, writer)
		var cardID string
		var cardIsNew bool
		if !d.offBoard() {
			cardID, cardIsNew, err = bridge{tx, p.UserID, p.Actor(), now}.arrive(ctx, draft, parseMeta(req.GetMetadata()))
			if err != nil {
				return err
			}
		}
		it := &ent.QueueItem{ID: draft.ID, CreatedAt: now, UpdatedAt: now, UserID: p.UserID,
			Type: queueitem.Type(typ), Title: title, Description: req.Description,
			Priority: queueitem.Priority(prio), Status: status, Source: source, Metadata: req.GetMetadata(),
			TaskOrigin: queueitem.TaskOriginOwner, ProjectID: req.ProjectId, CardID: nonEmpty(&cardID),
			ParentTaskID: req.ParentTaskId, DependsOn: req.DependsOn, SubtaskOrder: d.subtaskOrder}
		if f := d.foreign; f != nil {
			it.TaskOrigin = queueitem.TaskOriginFederation
			it.RequesterEmail, it.RequesterName, it.SourceInstanceName = &f.RequesterEmail, &f.RequesterName, &f.SourceInstanceName
		}
		setWriter(it, writer)
		if err := insertItem(ctx, tx, it); err != nil {
			return err
		}
		out = it
		if err := s.changed(ctx, tx, set, it, webhooks.QueueUpdated{QueueItemID: it.ID, Action: "queue_added", Status: string(it.Status)}); err != nil {
			return err
		}
		if it.Status == queueitem.StatusReady {
			becameReady(tx, it)
		}
		if then != nil {
			if err := then(ctx, tx, it); err != nil {
				return err
			}
		}
		return apperr.Wrap(activity.Write(ctx, tx, activity.Entry{
			UserID: p.UserID, Action: "queue_added", Actor: p.Actor(), CardID: cardID, CardIsNew: cardIsNew, At: now,
			Summary:  fmt.Sprintf("Queued %q (%s)", it.Title, it.Status),
			Metadata: map[string]any{"queueItemId": it.ID, "status": string(it.Status)},
		}))
	}()
	if err != nil {
		return nil, err
	}
	return out, nil
}

// offBoard says whether a new item stays off the board: an invite, held
// for its answer, is not work to track (issue 28; no card, no checklist row).
func (d draftOf) offBoard() bool { return d.held || (d.foreign != nil && d.foreign.OffBoard) }

// setWriter records w as the new item's creator and the writer of its text.
func setWriter(it *ent.QueueItem, w provenance.Mark) {
	it.CreatedBy, it.CreatedByRef = queueitem.CreatedBy(w.Kind), w.RefPtr()
	it.TextBy, it.TextByRef = queueitem.TextBy(w.Kind), w.RefPtr()
}

// askedBy is who asked for a new item: the request's source when given and not
// blank, else for a key the X-Agent-Name header or the key's label; the
// operator's own session leaves it empty (docs/decisions.md "Who asked, who
// wrote, first run").
func askedBy(ctx context.Context, p *auth.Principal, given *string) (*string, error) {
	if given != nil && strings.TrimSpace(*given) != "" {
		return given, nil
	}
	if p.Via != auth.ViaKey {
		return nil, nil
	}
	name, err := p.AgentName()
	if err != nil || name == "" {
		return nil, err
	}
	return &name, nil
}

// insertItem writes a new item's row as plain SQL (see insertCard for why);
// it sets exactly the columns ent's create would.
func insertItem(ctx context.Context, tx *db.Tx, it *ent.QueueItem) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO queue_items (id, created_at, updated_at, user_id, type, title, description, priority, status, source, metadata, task_origin, project_id, card_id, parent_task_id, depends_on, requester_email, requester_name, source_instance_name, subtask_order, created_by, created_by_ref, text_by, text_by_ref)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)`,
		it.ID, it.CreatedAt, it.UpdatedAt, it.UserID, string(it.Type), it.Title, it.Description, string(it.Priority),
		string(it.Status), it.Source, it.Metadata, string(it.TaskOrigin), it.ProjectID, it.CardID, it.ParentTaskID, it.DependsOn,
		it.RequesterEmail, it.RequesterName, it.SourceInstanceName, it.SubtaskOrder,
		string(it.CreatedBy), it.CreatedByRef, string(it.TextBy), it.TextByRef)
	return err
}

// checkRefs makes sure referenced ids are the caller's own.
func (s *Service) checkRefs(ctx context.Context, tx *db.Tx, userID string, cardID, dependsOn, parent *string) error {
	if cardID != nil {
		ok, err := tx.Card.Query().Where(card.ID(*cardID), card.UserID(userID)).Exist(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.NotFound("card %q not found", *cardID)
		}
	}
	for field, id := range map[string]*string{"dependsOn": dependsOn, "parentTaskId": parent} {
		if id == nil {
			continue
		}
		ok, err := tx.QueueItem.Query().Where(queueitem.ID(*id), queueitem.UserID(userID)).Exist(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.NotFound("%s: queue item %q not found", field, *id)
		}
	}
	return nil
}

// checkProject refuses filing an item under a project the caller may not
// file in (server/membership); an unchanged projectId is not checked
// again, so a member who left can still edit their item's other fields.
func checkProject(ctx context.Context, tx *db.Tx, userID string, id, current *string) error {
	if id == nil || *id == "" || (current != nil && *current == *id) {
		return nil
	}
	return membership.CheckFile(ctx, tx.Client(), userID, *id)
}

// UpdateQueueItem changes the supplied fields and runs the prompt optimizer
// when the title or description changes.
func (s *Service) UpdateQueueItem(ctx context.Context, req *switchboardv1.UpdateQueueItemRequest) (*switchboardv1.UpdateQueueItemResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.Title == nil && req.Description == nil && req.Priority == nil && req.Type == nil && req.Source == nil &&
		req.Metadata == nil && req.ProjectId == nil && req.CardId == nil && req.DependsOn == nil {
		return nil, apperr.Invalid("no field to change supplied")
	}
	var title string
	if req.Title != nil {
		if title, err = cleanTitle(req.GetTitle()); err != nil {
			return nil, err
		}
	}
	if req.Priority != nil {
		if err := apperr.OneOf("priority", req.GetPriority(), Priorities); err != nil {
			return nil, err
		}
	}
	if req.Type != nil {
		if err := apperr.OneOf("type", req.GetType(), Types); err != nil {
			return nil, err
		}
	}
	if err := validMeta(req.Metadata); err != nil {
		return nil, err
	}
	// The optimizer may ask a language model: do that before the transaction,
	// from the item as it is now.
	var seen text
	var sug *suggestion
	var tgt *target
	if req.Title != nil || req.Description != nil {
		cur, err := s.load(ctx, s.DB.Client, p.UserID, req.GetId())
		if err != nil {
			return nil, err
		}
		seen = text{cur.Title, deref(cur.Description)}
		if next := edited(seen, req, title); next != seen {
			meta := parseMeta(cur.Metadata)
			if req.Metadata != nil {
				meta = parseMeta(req.GetMetadata())
			}
			tgt = targetOf(ctx, s.DB.Client, p.UserID, meta)
			v := suggestFor(ctx, s.LLM, tgt, next)
			sug = &v
		}
	}
	var out *ent.QueueItem
	err = s.inTx(ctx, func(ctx context.Context, tx *db.Tx) error {
		it, err := s.load(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return err
		}
		if req.DependsOn != nil && req.GetDependsOn() == it.ID {
			return apperr.Invalid("an item cannot depend on itself")
		}
		if err := s.checkRefs(ctx, tx, p.UserID, req.CardId, req.DependsOn, nil); err != nil {
			return err
		}
		if err := checkProject(ctx, tx, p.UserID, req.ProjectId, it.ProjectID); err != nil {
			return err
		}
		before := text{it.Title, deref(it.Description)}
		after := edited(before, req, title)
		up := it.Update()
		if req.Title != nil || req.Description != nil {
			by := provenance.Written(provenance.Read(string(it.TextBy), it.TextByRef), provenance.Of(ctx),
				provenance.Field{Before: before.Title, After: after.Title, Set: req.Title != nil},
				provenance.Field{Before: before.Description, After: after.Description, Set: req.Description != nil})
			provenance.SetText[queueitem.TextBy](up.Mutation(), by)
		}
		if req.Title != nil {
			up.SetTitle(title)
		}
		if req.Description != nil {
			up.SetDescription(req.GetDescription())
		}
		if req.Priority != nil {
			up.SetPriority(queueitem.Priority(req.GetPriority()))
		}
		if req.Type != nil {
			up.SetType(queueitem.Type(req.GetType()))
		}
		up.SetNillableSource(req.Source).SetNillableProjectID(req.ProjectId).SetNillableCardID(req.CardId).SetNillableDependsOn(req.DependsOn)
		meta := parseMeta(it.Metadata)
		if req.Metadata != nil {
			meta = parseMeta(req.GetMetadata())
		}
		if after != before {
			if sug == nil || before != seen {
				// Changed since it was read: rewrite deterministically.
				v := fallback(after)
				if tgt != nil {
					v = tgt.fitFallback(v)
				}
				sug = &v
			}
			optimize(meta, before, *sug, s.Now())
		}
		raw, err := encodeMeta(meta)
		if err != nil {
			return err
		}
		if it, err = up.SetMetadata(raw).Save(ctx); err != nil {
			return err
		}
		out = it
		if err := s.changed(ctx, tx, settingsFor(p.UserID), it, webhooks.QueueUpdated{QueueItemID: it.ID, Action: "queue_updated", Status: string(it.Status)}); err != nil {
			return err
		}
		return apperr.Wrap(activity.Write(ctx, tx, activity.Entry{
			UserID: p.UserID, Action: "queue_updated", Actor: p.Actor(), CardID: deref(it.CardID), At: s.Now(),
			Summary: fmt.Sprintf("Edited %q", it.Title), Metadata: map[string]any{"queueItemId": it.ID},
		}))
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateQueueItemResponse{Item: toProto(out)}, nil
}

// DeleteQueueItem removes an item from any status (guard 5).
func (s *Service) DeleteQueueItem(ctx context.Context, req *switchboardv1.DeleteQueueItemRequest) (*switchboardv1.DeleteQueueItemResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var gone *ent.QueueItem
	err = s.inTx(ctx, func(ctx context.Context, tx *db.Tx) error {
		it, err := s.load(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return err
		}
		gone = it
		return s.remove(ctx, tx, p, settingsFor(p.UserID), it, "Removed %q from the queue", false)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteQueueItemResponse{Item: toProto(gone)}, nil
}

// remove deletes an item with its board rows and writes queue_deleted. A
// reject (onlyPending) deletes the item only while it still waits for
// confirmation, so of a reject and an approve racing, one wins. The item's row
// goes first, as a move updates it first: both lock it before the board.
func (s *Service) remove(ctx context.Context, tx *db.Tx, p *auth.Principal, set *accountSettings, it *ent.QueueItem, summary string, onlyPending bool) error {
	del := tx.QueueItem.Delete().Where(queueitem.ID(it.ID), queueitem.UserID(p.UserID))
	if onlyPending {
		del.Where(queueitem.StatusEQ(queueitem.StatusPendingConfirmation))
	}
	n, err := del.Exec(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return s.lostRace(ctx, tx, p.UserID, it.ID)
	}
	if err := (bridge{tx, p.UserID, p.Actor(), s.Now().UTC()}).remove(ctx, it); err != nil {
		return err
	}
	if err := tx.Publish(ctx, ItemRemoved{Item: it, Rejected: onlyPending}); err != nil {
		return err
	}
	if err := s.changed(ctx, tx, set, it, webhooks.QueueUpdated{QueueItemID: it.ID, Action: "queue_deleted", Status: string(it.Status)}); err != nil {
		return err
	}
	return apperr.Wrap(activity.Write(ctx, tx, activity.Entry{
		UserID: p.UserID, Action: "queue_deleted", Actor: p.Actor(), CardID: deref(it.CardID), At: s.Now(),
		Summary: fmt.Sprintf(summary, it.Title), Metadata: map[string]any{"queueItemId": it.ID},
	}))
}

// Discard deletes userID's item in tx as a delete does (board rows, events,
// activity), for a record that ends with its item: an answered invite
// (server/groups). An item already gone is no error.
func (s *Service) Discard(ctx context.Context, tx *db.Tx, userID, itemID string) error {
	it, err := tx.QueueItem.Query().Where(queueitem.ID(itemID), queueitem.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	p := &auth.Principal{UserID: userID, Via: auth.ViaSession, Name: "Switchboard"}
	return s.remove(ctx, tx, p, settingsFor(userID), it, "Removed %q: it was answered", false)
}

// Finish completes userID's item along PathToDone in its own unit of work,
// as Switchboard: an item that a record answered (an invite over the
// network, server/groups) leaves the queue done, its relay completed. An
// item already gone or done is no error.
func (s *Service) Finish(ctx context.Context, userID, itemID, summary string) error {
	return s.DB.InTx(ctx, func(tx *db.Tx) error {
		it, err := tx.QueueItem.Query().Where(queueitem.ID(itemID), queueitem.UserID(userID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil
		} else if err != nil {
			return err
		}
		if len(PathToDone(string(it.Status))) == 0 {
			return nil
		}
		p := &auth.Principal{UserID: userID, Via: auth.ViaSession, Name: "Switchboard"}
		_, err = s.Annotate(ctx, tx, p, it, Annotation{Metadata: it.Metadata, Action: "queue_updated", Summary: summary,
			Details: map[string]any{"queueItemId": it.ID}, Complete: true})
		return err
	})
}

// ConfirmQueueItem approves or rejects an item waiting for confirmation.
func (s *Service) ConfirmQueueItem(ctx context.Context, req *switchboardv1.ConfirmQueueItemRequest) (*switchboardv1.ConfirmQueueItemResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	action := req.GetAction()
	if action != "approve" && action != "reject" {
		return nil, apperr.Invalid("action must be approve or reject, not %q", action)
	}
	if req.GetId() == "" {
		return nil, apperr.Invalid("id is required")
	}
	res := &switchboardv1.ConfirmQueueItemResponse{}
	err = s.inTx(ctx, func(ctx context.Context, tx *db.Tx) error {
		it, err := s.load(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return err
		}
		if it.Status != queueitem.StatusPendingConfirmation {
			return apperr.IllegalMove("only items waiting for confirmation can be confirmed; this one is %s", it.Status)
		}
		if action == "reject" {
			res.Message = rejectedMessage(it.Title)
			return s.remove(ctx, tx, p, settingsFor(p.UserID), it, "Rejected %q", true)
		}
		moved, _, err := s.move(ctx, tx, p, settingsFor(p.UserID), it, Ready)
		if err != nil {
			return err
		}
		res.Item, res.Message = toProto(moved), approvedMessage(it.Title)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// moveShown is move on a caller's request, with the caller's settings,
// answering the moved item as the response shows it.
func (s *Service) moveShown(ctx context.Context, tx *db.Tx, p *auth.Principal, it *ent.QueueItem, to string) (*switchboardv1.QueueItem, bool, error) {
	moved, auto, err := s.move(ctx, tx, p, settingsFor(p.UserID), it, to)
	if err != nil {
		return nil, false, err
	}
	return toProto(moved), auto, nil
}

// UpdateQueueItemStatus moves an item along the transition table.
func (s *Service) UpdateQueueItemStatus(ctx context.Context, req *switchboardv1.UpdateQueueItemStatusRequest) (*switchboardv1.UpdateQueueItemStatusResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if err := apperr.OneOf("status", req.GetStatus(), Statuses); err != nil {
		return nil, err
	}
	res := &switchboardv1.UpdateQueueItemStatusResponse{}
	err = s.inTx(ctx, func(ctx context.Context, tx *db.Tx) error {
		it, err := s.load(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return err
		}
		res.Item, res.AutoDispatched, err = s.moveShown(ctx, tx, p, it, req.GetStatus())
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ReportQueueResult records a result, merges it into the metadata and moves the
// item (done_today unless the report says otherwise).
func (s *Service) ReportQueueResult(ctx context.Context, req *switchboardv1.ReportQueueResultRequest) (*switchboardv1.ReportQueueResultResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	result := strings.TrimSpace(req.GetResult())
	if result == "" {
		return nil, apperr.Invalid("result is required and must not be empty")
	}
	to := req.GetStatus()
	if to == "" {
		to = DoneToday
	}
	if err := apperr.OneOf("status", to, Statuses); err != nil {
		return nil, err
	}
	res := &switchboardv1.ReportQueueResultResponse{}
	err = s.inTx(ctx, func(ctx context.Context, tx *db.Tx) error {
		it, err := s.load(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return err
		}
		if bad := CheckMove(string(it.Status), to); bad != nil {
			return apperr.IllegalMove("%s", bad.Reason)
		}
		now := s.Now()
		meta := parseMeta(it.Metadata)
		meta["result"], meta["reportedBy"], meta["completedAt"] = result, p.Actor(), now.UTC().Format(time.RFC3339)
		raw, err := encodeMeta(meta)
		if err != nil {
			return err
		}
		it, err = it.Update().SetMetadata(raw).SetResult(result).SetResultStatus(queueitem.ResultStatus(to)).
			SetReportedBy(p.Actor()).SetCompletedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		res.Item, res.AutoDispatched, err = s.moveShown(ctx, tx, p, it, to)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// GetQueueResult answers the reported result; 404 when none.
func (s *Service) GetQueueResult(ctx context.Context, req *switchboardv1.GetQueueResultRequest) (*switchboardv1.GetQueueResultResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	it, err := s.load(ctx, s.DB.Client, p.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	if it.Result == nil {
		return nil, apperr.NotFound("queue item %q has no result yet", it.ID)
	}
	out := &switchboardv1.GetQueueResultResponse{Result: *it.Result, ReportedBy: it.ReportedBy}
	if it.ResultStatus != nil {
		out.Status = string(*it.ResultStatus)
	}
	if it.CompletedAt != nil {
		out.CompletedAt = timestamp(*it.CompletedAt)
	}
	return out, nil
}

// edited is t with the request's title (already cleaned) and description applied.
func edited(t text, req *switchboardv1.UpdateQueueItemRequest, title string) text {
	if req.Title != nil {
		t.Title = title
	}
	if req.Description != nil {
		t.Description = req.GetDescription()
	}
	return t
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
