package documents

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/http"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/render"
)

// UploadBodyLimit is the multipart route's body limit: the file's MaxUpload
// and room for the form's boundaries, headers and title.
const UploadBodyLimit = MaxUpload + 64<<10

// Multipart sends a multipart/form-data POST to upload and anything else
// (the JSON create) to api.
func Multipart(upload, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mediaType(r.Header.Get("Content-Type")) == "multipart/form-data" {
			upload.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// Upload is POST /api/documents with a multipart/form-data body: a `file`
// part and an optional `title` (the file's name when absent). It answers
// 201 with CreateDocumentResponse's REST form. The gate has admitted the
// caller as CreateDocument and the body limit has been applied.
func (s *Service) Upload() func(http.ResponseWriter, *http.Request) error {
	return s.upload
}

func (s *Service) upload(w http.ResponseWriter, r *http.Request) error {
	p, err := auth.RequirePrincipal(r.Context())
	if err != nil {
		return err
	}
	if r.Header.Get("Idempotency-Key") != "" {
		return apperr.Invalid("a multipart upload does not take Idempotency-Key; the JSON create does")
	}
	f, err := readForm(r)
	if err != nil {
		return err
	}
	title := f.title
	if !f.hasTitle {
		title = f.filename
	}
	// The title and the declared type pass the same boundary check as a JSON create.
	if err := input.Check(&switchboardv1.CreateDocumentRequest{Title: title, MimeType: f.declared}); err != nil {
		return err
	}
	if title, err = checkTitle(title); err != nil {
		return err
	}
	kind, err := Classify(f.declared, f.filename, f.data)
	if err != nil {
		return err
	}
	n := New{UserID: p.UserID, Actor: p.Actor(), Title: title, MimeType: kind.MimeType, At: s.now()}
	if kind.Text {
		n.Content = string(f.data)
	} else {
		n.Data = f.data
	}
	d, err := db.InTxValue(r.Context(), s.DB, func(tx *db.Tx) (*ent.Document, error) { return Create(r.Context(), tx, n) })
	if err != nil {
		return err
	}
	body, err := render.RESTMarshaler{}.Marshal(&switchboardv1.CreateDocumentResponse{Document: ToProto(d)})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
	return nil
}

// form is an upload's parts.
type form struct {
	data               []byte
	filename, declared string
	title              string
	hasTitle, hasFile  bool
}

// maxTitleBytes bounds the title part's read: 500 characters of up to four
// bytes, with room to tell an over-long title from a long one.
const maxTitleBytes = 4 << 10

func readForm(r *http.Request) (*form, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, apperr.Invalid("malformed multipart/form-data body: %v", err)
	}
	f := &form{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, apperr.Invalid("malformed multipart/form-data body: %v", err)
		}
		if err := f.read(part); err != nil {
			return nil, err
		}
	}
	if !f.hasFile {
		return nil, apperr.Invalid("a multipart upload needs a file part named \"file\"")
	}
	return f, nil
}

func (f *form) read(part *multipart.Part) error {
	defer part.Close()
	switch name := part.FormName(); name {
	case "file":
		if f.hasFile {
			return apperr.Invalid("one file per upload: the form has two \"file\" parts")
		}
		data, err := io.ReadAll(io.LimitReader(part, MaxUpload+1))
		if err != nil {
			return apperr.Invalid("could not read the file part: %v", err)
		}
		if len(data) > MaxUpload {
			return apperr.TooLarge("the file is larger than %d bytes", MaxUpload)
		}
		f.data, f.filename, f.declared, f.hasFile = data, part.FileName(), part.Header.Get("Content-Type"), true
		if !input.Text(f.filename) {
			return input.NotText("the file's name")
		}
		if !input.Text(f.declared) {
			return input.NotText("the file's Content-Type")
		}
	case "title":
		if f.hasTitle {
			return apperr.Invalid("the form has two \"title\" parts")
		}
		data, err := io.ReadAll(io.LimitReader(part, maxTitleBytes+1))
		if err != nil {
			return apperr.Invalid("could not read the title part: %v", err)
		}
		if len(data) > maxTitleBytes {
			return apperr.Invalid("title must be at most 500 characters")
		}
		f.title, f.hasTitle = string(data), true
	default:
		return apperr.Invalid("unknown form field %q: an upload takes \"file\" and \"title\"", name)
	}
	return nil
}

// Raw is GET /api/documents/{id}/raw: the stored bytes (a text document's
// UTF-8 text) with their type, never sniffed by the browser, inline only
// for types a browser shows without running anything, in a sandbox.
func (s *Service) Raw() func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := auth.RequirePrincipal(r.Context())
		if err != nil {
			return err
		}
		d, err := find(r.Context(), s.DB.Client, p.UserID, r.PathValue("id"))
		if err != nil {
			return err
		}
		body, contentType := []byte(d.Content), d.MimeType+"; charset=utf-8"
		if !IsText(d.MimeType) {
			body, contentType = nil, d.MimeType
			if d.Data != nil {
				body = *d.Data
			}
		}
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Disposition", Disposition(d.Title, d.MimeType))
		h.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'")
		h.Set("Cache-Control", "private, no-cache")
		// ServeContent answers Range and If-Modified-Since and HEAD.
		http.ServeContent(w, r, "", d.UpdatedAt, bytes.NewReader(body))
		return nil
	}
}
