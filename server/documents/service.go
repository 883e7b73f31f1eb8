// Package documents owns the operator's documents (documents.proto): text
// documents (their text in the content column) and binary ones (their bytes
// as uploaded), listed, created by JSON or a multipart upload (upload.go),
// changed, deleted, read as text cut at ContentLimit characters and served
// raw. A store agent's delivery (server/store/review) is a document like the
// others, source marketplace. Rules that decide (types, cutting, the
// disposition) are in rules.go.
package documents

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/document"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

var (
	_ switchboardv1connect.DocumentServiceHandler = (*Service)(nil)
	_ switchboardv1.DocumentServiceServer         = (*Service)(nil)
)

// Service implements DocumentService and the two plain routes beside it.
type Service struct {
	DB  *db.DB
	Now func() time.Time
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// metadata is every column but the content and the bytes: what a list reads.
var metadata = []string{
	document.FieldID, document.FieldUserID, document.FieldTitle, document.FieldMimeType, document.FieldSize,
	document.FieldSource, document.FieldSharedBy, document.FieldExecutionID,
	document.FieldCreatedAt, document.FieldUpdatedAt,
	document.FieldCreatedBy, document.FieldCreatedByRef, document.FieldTextBy, document.FieldTextByRef,
}

// withContent is metadata and the text, without a binary document's bytes.
func withContent() []string { return append([]string{document.FieldContent}, metadata...) }

// ListDocuments pages the caller's documents, newest first.
func (s *Service) ListDocuments(ctx context.Context, req *switchboardv1.ListDocumentsRequest) (*switchboardv1.ListDocumentsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	q := s.DB.Document.Query().Where(document.UserID(p.UserID))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	var rows []*ent.Document
	if pg.Offset < total {
		rows, err = q.Order(ent.Desc(document.FieldCreatedAt), ent.Desc(document.FieldID)).
			Offset(pg.Offset).Limit(pg.Limit).Select(metadata...).All(ctx)
		if err != nil {
			return nil, err
		}
	}
	out := &switchboardv1.ListDocumentsResponse{Documents: make([]*switchboardv1.Document, 0, len(rows)),
		Pagination: pg.Of(total, len(rows))}
	for _, d := range rows {
		out.Documents = append(out.Documents, ToProto(d))
	}
	return out, nil
}

// CreateDocument stores a text document.
func (s *Service) CreateDocument(ctx context.Context, req *switchboardv1.CreateDocumentRequest) (*switchboardv1.CreateDocumentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	title, err := checkTitle(req.GetTitle())
	if err != nil {
		return nil, err
	}
	t, err := textType(req.GetMimeType())
	if err != nil {
		return nil, err
	}
	if err := checkText(t, []byte(req.GetContent())); err != nil {
		return nil, err
	}
	d, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.Document, error) {
		return Create(ctx, tx, New{UserID: p.UserID, Actor: p.Actor(), Title: title, MimeType: t,
			Content: req.GetContent(), At: s.now()})
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateDocumentResponse{Document: ToProto(d)}, nil
}

// New is a document to store: text in Content when MimeType is a text
// type, else the bytes in Data.
type New struct {
	UserID   string
	Actor    string
	Title    string
	MimeType string
	Content  string
	Data     []byte
	At       time.Time
	// Action is the activity written; document_created when empty (a
	// transcript's document writes recording_created instead, RULINGS
	// Reconciliation 20).
	Action string
	// Metadata is added to the activity entry's.
	Metadata map[string]any
}

// Create stores a local document and its document_created activity in tx
// (the multipart upload, and the assistant's generated images).
func Create(ctx context.Context, tx *db.Tx, n New) (*ent.Document, error) {
	w := provenance.Of(ctx)
	create := tx.Document.Create().SetUserID(n.UserID).SetTitle(n.Title).SetMimeType(n.MimeType).
		SetSource("local").SetCreatedAt(n.At).SetUpdatedAt(n.At)
	provenance.SetCreated[document.CreatedBy, document.TextBy](create.Mutation(), w)
	if IsText(n.MimeType) {
		create.SetContent(n.Content).SetSize(len(n.Content))
	} else {
		create.SetContent("").SetData(n.Data).SetSize(len(n.Data))
	}
	d, err := create.Save(ctx)
	if err != nil {
		return nil, err
	}
	action, summary := n.Action, "Created document "+d.Title
	if action == "" {
		action = "document_created"
	} else {
		summary = "Recorded " + d.Title
	}
	meta := map[string]any{"documentId": d.ID, "mimeType": d.MimeType}
	for k, v := range n.Metadata {
		meta[k] = v
	}
	err = activity.Write(ctx, tx, activity.Entry{
		UserID: n.UserID, Action: action, Actor: n.Actor, Summary: summary, Metadata: meta, At: n.At,
	})
	if err != nil {
		return nil, apperr.Internal(fmt.Errorf("documents: %w", err))
	}
	return d, nil
}

// UpdateDocument changes the supplied fields.
func (s *Service) UpdateDocument(ctx context.Context, req *switchboardv1.UpdateDocumentRequest) (*switchboardv1.UpdateDocumentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	d, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.Document, error) {
		d, err := find(ctx, tx.Client(), p.UserID, req.GetId(), withContent()...)
		if err != nil {
			return nil, err
		}
		update := tx.Document.UpdateOneID(d.ID).Where(document.UserID(p.UserID)).SetUpdatedAt(s.now())
		title := provenance.Field{Before: d.Title, After: d.Title}
		content := provenance.Field{Before: d.Content, After: d.Content}
		if req.Title != nil {
			t, err := checkTitle(req.GetTitle())
			if err != nil {
				return nil, err
			}
			update.SetTitle(t)
			title.After, title.Set = t, true
		}
		if req.Content != nil || req.MimeType != nil {
			if !IsText(d.MimeType) {
				return nil, apperr.Invalid("document %q is a binary file (%s): only its title changes; upload a new file instead", d.ID, d.MimeType)
			}
			t := d.MimeType
			if req.MimeType != nil {
				if t, err = textType(req.GetMimeType()); err != nil {
					return nil, err
				}
			}
			if req.Content != nil {
				content.After, content.Set = req.GetContent(), true
			}
			if err := checkText(t, []byte(content.After)); err != nil {
				return nil, err
			}
			update.SetMimeType(t).SetContent(content.After).SetSize(len(content.After))
		}
		by := provenance.Written(provenance.Read(string(d.TextBy), d.TextByRef), provenance.Of(ctx), title, content)
		provenance.SetText[document.TextBy](update.Mutation(), by)
		d, err = update.Select(metadata[0], metadata[1:]...).Save(ctx)
		if ent.IsNotFound(err) { // deleted since find
			return nil, apperr.NotFound("document %q not found", req.GetId())
		} else if err != nil {
			return nil, err
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateDocumentResponse{Document: ToProto(d)}, nil
}

// DeleteDocument removes a document and answers it as it was.
func (s *Service) DeleteDocument(ctx context.Context, req *switchboardv1.DeleteDocumentRequest) (*switchboardv1.DeleteDocumentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	d, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.Document, error) {
		d, err := find(ctx, tx.Client(), p.UserID, req.GetId(), metadata...)
		if err != nil {
			return nil, err
		}
		err = tx.Document.DeleteOneID(d.ID).Where(document.UserID(p.UserID)).Exec(ctx)
		if ent.IsNotFound(err) { // deleted since find
			return nil, apperr.NotFound("document %q not found", d.ID)
		} else if err != nil {
			return nil, err
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteDocumentResponse{Document: ToProto(d)}, nil
}

// GetDocumentContent answers a text document's content cut at ContentLimit
// characters, or a binary document's metadata with a note.
func (s *Service) GetDocumentContent(ctx context.Context, req *switchboardv1.GetDocumentContentRequest) (*switchboardv1.GetDocumentContentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	d, err := find(ctx, s.DB.Client, p.UserID, req.GetId(), withContent()...)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.GetDocumentContentResponse{Success: true, Source: d.Source, Document: ToProto(d)}
	if !IsText(d.MimeType) {
		note := fmt.Sprintf("%s is a binary file (%s, %d bytes): it has no text content; GET /api/documents/%s/raw serves the file",
			d.Title, d.MimeType, sizeOf(d), d.ID)
		out.Note = &note
		return out, nil
	}
	out.Content, out.Truncated, out.TotalLength = cut(d.Content)
	if out.Truncated {
		note := fmt.Sprintf("content cut at %d of %d characters", ContentLimit, out.TotalLength)
		out.Note = &note
	}
	return out, nil
}

func cut(text string) (string, bool, int32) {
	c, truncated, total := Cut(text, ContentLimit)
	return c, truncated, int32(total) // fits: a document is at most MaxUpload bytes
}

func sizeOf(d *ent.Document) int {
	if d.Size != nil {
		return *d.Size
	}
	return len(d.Content)
}

// find loads one of the caller's documents (only the named fields when
// given); another account's id is not found.
func find(ctx context.Context, c *ent.Client, userID, id string, fields ...string) (*ent.Document, error) {
	if id == "" {
		return nil, apperr.Invalid("id is required")
	}
	q := c.Document.Query().Where(document.ID(id), document.UserID(userID))
	var (
		d   *ent.Document
		err error
	)
	if len(fields) > 0 {
		d, err = q.Select(fields...).Only(ctx)
	} else {
		d, err = q.Only(ctx)
	}
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("document %q not found", id)
	} else if err != nil {
		return nil, err
	}
	return d, nil
}

// checkTitle trims a title and refuses an empty one (the boundary refuses
// NUL, invalid UTF-8 and more than 500 characters).
func checkTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return "", apperr.Invalid("title is required")
	}
	return title, nil
}

// ToProto is a stored document as the API answers it (metadata only).
func ToProto(d *ent.Document) *switchboardv1.Document {
	out := &switchboardv1.Document{
		Id: d.ID, Title: d.Title, MimeType: d.MimeType, Source: d.Source, SharedBy: d.SharedBy,
		ExecutionId: d.ExecutionID, Text: IsText(d.MimeType),
		CreatedAt: timestamppb.New(d.CreatedAt), UpdatedAt: timestamppb.New(d.UpdatedAt),
	}
	if d.Size != nil {
		n := int32(*d.Size) // at most MaxUpload
		out.Size = &n
	}
	return out
}
