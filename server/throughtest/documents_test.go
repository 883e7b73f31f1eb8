package throughtest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/document"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/documents"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Spec: RULINGS "The assistant" (Documents), document 2 "Other session
// endpoints"; issue 16 point 7.

func pngBytes(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 5, 4))
	img.Set(2, 2, color.RGBA{G: 180, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// part is one part of a multipart form.
type part struct {
	name, filename, contentType string
	data                        []byte
}

// upload posts a multipart form as c.
func upload(t *testing.T, c *servertest.Caller, parts ...part) *servertest.Response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.filename != "" {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.filename))
		} else {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.name))
		}
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(p.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return c.Do(http.MethodPost, "/api/documents", body.Bytes(), "Content-Type", w.FormDataContentType())
}

func file(name, contentType string, data []byte) part {
	return part{name: "file", filename: name, contentType: contentType, data: data}
}

// created checks a 201 and answers the document.
func created(t *testing.T, res *servertest.Response) map[string]any {
	t.Helper()
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	d, _ := res.JSON(t)["document"].(map[string]any)
	if d == nil {
		t.Fatalf("no document in %s", res.Body)
	}
	return d
}

func content(t *testing.T, c *servertest.Caller, id string) map[string]any {
	t.Helper()
	res := c.Do(http.MethodGet, "/api/documents/"+id+"/content", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("content of %s: %d %s", id, res.Status, res.Body)
	}
	return res.JSON(t)
}

func count(t *testing.T, s *servertest.Server) (docs, created int) {
	t.Helper()
	ctx := context.Background()
	docs, err := s.DB.Document.Query().Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	created, err = s.DB.ActivityEntry.Query().Where(activityentry.Action("document_created")).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return docs, created
}

// Text, Markdown, JSON and CSV, by JSON and by multipart, come back as text
// from content and as their bytes and type from raw; each create writes
// document_created.
func TestTextDocumentsByJSONAndMultipart(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	cases := []struct {
		mime, text string
	}{
		{"text/plain", "Meeting notes\nline two"},
		{"text/markdown", "# Plan\n- ship"},
		{"application/json", `{"budget": 1200, "items": ["a", "b"]}`},
		{"text/csv", "name,amount\nAda,12\nGrace,7\n"},
	}
	ids := map[string]bool{}
	for i, tc := range cases {
		byJSON := created(t, ann.Session.Do(http.MethodPost, "/api/documents",
			map[string]any{"title": "JSON " + tc.mime, "content": tc.text, "mimeType": tc.mime}))
		byForm := created(t, upload(t, ann.Session, file(fmt.Sprintf("file%d", i), tc.mime, []byte(tc.text))))
		for _, d := range []map[string]any{byJSON, byForm} {
			id, _ := d["id"].(string)
			ids[id] = true
			if d["mimeType"] != tc.mime || d["text"] != true || d["source"] != "local" || d["size"] != float64(len(tc.text)) {
				t.Errorf("%s: document %v", tc.mime, d)
			}
			c := content(t, ann.Session, id)
			if c["success"] != true || c["content"] != tc.text || c["truncated"] != false ||
				c["totalLength"] != float64(len([]rune(tc.text))) || c["source"] != "local" || c["note"] != nil {
				t.Errorf("%s: content %v", tc.mime, c)
			}
			raw := ann.Session.Do(http.MethodGet, "/api/documents/"+id+"/raw", nil)
			if raw.Status != http.StatusOK || string(raw.Body) != tc.text ||
				raw.Header.Get("Content-Type") != tc.mime+"; charset=utf-8" || raw.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: raw %d %v %q", tc.mime, raw.Status, raw.Header, raw.Body)
			}
		}
	}
	// The multipart title defaults to the file's name.
	if d := created(t, upload(t, ann.Session, file("report.md", "", []byte("# R")))); d["title"] != "report.md" || d["mimeType"] != "text/markdown" {
		t.Errorf("untitled upload: %v", d)
	}
	if d := created(t, upload(t, ann.Session, file("x.txt", "text/plain", []byte("x")), part{name: "title", data: []byte("Named")})); d["title"] != "Named" {
		t.Errorf("titled upload: %v", d)
	}
	list := ann.Session.Do(http.MethodGet, "/api/documents?limit=100", nil).JSON(t)
	docs, _ := list["documents"].([]any)
	if len(docs) != 10 || list["pagination"].(map[string]any)["total"] != float64(10) {
		t.Fatalf("list: %v", list)
	}
	for _, d := range docs {
		if _, has := d.(map[string]any)["content"]; has {
			t.Errorf("a list entry carries content: %v", d)
		}
	}
	if n, acts := count(t, s); n != 10 || acts != 10 {
		t.Errorf("%d documents and %d document_created entries, want 10 and 10", n, acts)
	}
}

// A binary file (a PNG made by image/png), uploaded with a generic declared
// type, is stored as what its bytes are: content answers its metadata with
// a note, raw the very bytes with their type.
func TestBinaryDocument(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	pic := pngBytes(t)
	d := created(t, upload(t, ann.Session, file("chart.png", "application/octet-stream", pic), part{name: "title", data: []byte("Chart")}))
	id, _ := d["id"].(string)
	if d["mimeType"] != "image/png" || d["text"] != false || d["size"] != float64(len(pic)) {
		t.Fatalf("document %v", d)
	}
	c := content(t, ann.Session, id)
	note, _ := c["note"].(string)
	if c["content"] != "" || c["truncated"] != false || c["totalLength"] != float64(0) ||
		!strings.Contains(note, "image/png") || !strings.Contains(note, "/raw") {
		t.Errorf("content of a binary document: %v", c)
	}
	if meta, _ := c["document"].(map[string]any); meta["title"] != "Chart" || meta["mimeType"] != "image/png" {
		t.Errorf("content's metadata: %v", c["document"])
	}
	raw := ann.Session.Do(http.MethodGet, "/api/documents/"+id+"/raw", nil)
	if raw.Status != http.StatusOK || !bytes.Equal(raw.Body, pic) {
		t.Fatalf("raw: %d, %d bytes", raw.Status, len(raw.Body))
	}
	for k, want := range map[string]string{
		"Content-Type": "image/png", "X-Content-Type-Options": "nosniff", "Content-Disposition": "inline; filename=Chart",
	} {
		if got := raw.Header.Get(k); got != want {
			t.Errorf("raw %s = %q, want %q", k, got, want)
		}
	}
	if csp := raw.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") {
		t.Errorf("raw Content-Security-Policy = %q", csp)
	}
	// An HTML upload is served as an attachment, never inline.
	h := created(t, upload(t, ann.Session, file("page.html", "text/html", []byte("<html><script>alert(1)</script>"))))
	raw = ann.Session.Do(http.MethodGet, fmt.Sprintf("/api/documents/%s/raw", h["id"]), nil)
	if cd := raw.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") {
		t.Errorf("html served with Content-Disposition %q", cd)
	}
	// A binary document's title changes; its content does not.
	if res := ann.Session.Do(http.MethodPut, "/api/documents/"+id, map[string]any{"title": "Q3 chart"}); res.Status != http.StatusOK {
		t.Errorf("rename: %d %s", res.Status, res.Body)
	}
	if res := ann.Session.Do(http.MethodPut, "/api/documents/"+id, map[string]any{"content": "text now"}); res.Status != http.StatusBadRequest {
		t.Errorf("content of a binary document: %d %s, want 400", res.Status, res.Body)
	}
	// A JSON create takes text types only.
	if res := ann.Session.Do(http.MethodPost, "/api/documents", map[string]any{"title": "x", "content": "x", "mimeType": "image/png"}); res.Status != http.StatusBadRequest {
		t.Errorf("JSON create of image/png: %d %s, want 400", res.Status, res.Body)
	}
}

// Content is cut at 8,000 characters, counted as characters: 9,000 two- and
// three-byte characters answer 8,000 of them, truncated, totalLength 9,000.
func TestContentCutAtEightThousandCharacters(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	long := strings.Repeat("é日", 4500) // 9,000 characters, 22,500 bytes
	d := created(t, ann.Session.Do(http.MethodPost, "/api/documents", map[string]any{"title": "Long", "content": long}))
	c := content(t, ann.Session, d["id"].(string))
	got, _ := c["content"].(string)
	if n := len([]rune(got)); n != documents.ContentLimit || got != string([]rune(long)[:8000]) {
		t.Errorf("content has %d characters (%d bytes), want the first 8,000", n, len(got))
	}
	if c["truncated"] != true || c["totalLength"] != float64(9000) {
		t.Errorf("truncated %v, totalLength %v; want true, 9000", c["truncated"], c["totalLength"])
	}
	exact := strings.Repeat("日", 8000)
	d = created(t, upload(t, ann.Session, file("exact.txt", "text/plain", []byte(exact))))
	if c := content(t, ann.Session, d["id"].(string)); c["content"] != exact || c["truncated"] != false || c["totalLength"] != float64(8000) {
		t.Errorf("8,000 characters exactly: truncated %v, totalLength %v", c["truncated"], c["totalLength"])
	}
	// Over Connect: the same answer.
	client := switchboardv1connect.NewDocumentServiceClient(&http.Client{Jar: ann.Jar}, s.URL)
	res, err := client.GetDocumentContent(context.Background(), &switchboardv1.GetDocumentContentRequest{Id: d["id"].(string)})
	if err != nil || res.GetContent() != exact || res.GetTotalLength() != 8000 || !res.GetSuccess() {
		t.Errorf("Connect content: %v", err)
	}
}

// Another account's document is 404 on every route, and stays as it was.
func TestAnotherAccountsDocumentIsNotFound(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann, bob := s.SignUp("ann"), s.SignUp("bob")
	d := created(t, bob.Session.Do(http.MethodPost, "/api/documents", map[string]any{"title": "Bob's", "content": "private"}))
	id := d["id"].(string)
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/api/documents/" + id + "/content", nil},
		{http.MethodGet, "/api/documents/" + id + "/raw", nil},
		{http.MethodPut, "/api/documents/" + id, map[string]any{"title": "Mine"}},
		{http.MethodDelete, "/api/documents/" + id, nil},
	} {
		if res := ann.Session.Do(r.method, r.path, r.body); res.Status != http.StatusNotFound {
			t.Errorf("%s %s as ann: %d %s, want 404", r.method, r.path, res.Status, res.Body)
		}
	}
	client := switchboardv1connect.NewDocumentServiceClient(&http.Client{Jar: ann.Jar}, s.URL)
	_, err := client.DeleteDocument(context.Background(), &switchboardv1.DeleteDocumentRequest{Id: id})
	if connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("Connect delete as ann: %v, want not_found", err)
	}
	if list := ann.Session.Do(http.MethodGet, "/api/documents", nil).JSON(t); len(list["documents"].([]any)) != 0 {
		t.Errorf("ann lists bob's document: %v", list)
	}
	if c := content(t, bob.Session, id); c["content"] != "private" || c["document"].(map[string]any)["title"] != "Bob's" {
		t.Errorf("bob's document changed: %v", c)
	}
	// Bob's own update and delete work.
	if res := bob.Session.Do(http.MethodPut, "/api/documents/"+id, map[string]any{"content": "édité", "mimeType": "text/markdown"}); res.Status != http.StatusOK ||
		res.JSON(t)["document"].(map[string]any)["size"] != float64(len("édité")) {
		t.Errorf("bob's update: %d %s", res.Status, res.Body)
	}
	if res := bob.Session.Do(http.MethodDelete, "/api/documents/"+id, nil); res.Status != http.StatusOK {
		t.Errorf("bob's delete: %d %s", res.Status, res.Body)
	}
	if res := bob.Session.Do(http.MethodGet, "/api/documents/"+id+"/content", nil); res.Status != http.StatusNotFound {
		t.Errorf("content after delete: %d", res.Status)
	}
}

// NUL, invalid UTF-8 and an over-long title are refused (400) on both
// creates, and nothing is written.
func TestRefusalsWriteNothing(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	long := strings.Repeat("t", 501)
	jsonCases := map[string]any{
		"NUL in title":         `{"title":"a\u0000b","content":"x"}`,
		"NUL in content":       `{"title":"a","content":"x\u0000y"}`,
		"invalid UTF-8":        "{\"title\":\"caf\xe9\",\"content\":\"x\"}",
		"over-long title":      map[string]any{"title": long, "content": "x"},
		"empty title":          map[string]any{"title": "  ", "content": "x"},
		"JSON that is not":     map[string]any{"title": "a", "content": "{", "mimeType": "application/json"},
		"unknown field":        map[string]any{"title": "a", "content": "x", "owner": "bob"},
		"binary type via JSON": map[string]any{"title": "a", "content": "x", "mimeType": "application/pdf"},
	}
	for name, body := range jsonCases {
		if res := ann.Session.Do(http.MethodPost, "/api/documents", body); res.Status != http.StatusBadRequest {
			t.Errorf("JSON create, %s: %d %s, want 400", name, res.Status, res.Body)
		}
	}
	formCases := map[string][]part{
		"NUL in title":          {file("a.txt", "text/plain", []byte("x")), {name: "title", data: []byte("a\x00b")}},
		"invalid UTF-8 title":   {file("a.txt", "text/plain", []byte("x")), {name: "title", data: []byte("caf\xe9")}},
		"over-long title":       {file("a.txt", "text/plain", []byte("x")), {name: "title", data: []byte(long)}},
		"NUL in text":           {file("a.csv", "text/csv", []byte("a,\x00b"))},
		"invalid UTF-8 in text": {file("a.txt", "text/plain", []byte("caf\xe9"))},
		"no file":               {{name: "title", data: []byte("a")}},
		"two files":             {file("a.txt", "text/plain", []byte("x")), file("b.txt", "text/plain", []byte("y"))},
		"unknown part":          {file("a.txt", "text/plain", []byte("x")), {name: "owner", data: []byte("bob")}},
	}
	for name, parts := range formCases {
		if res := upload(t, ann.Session, parts...); res.Status != http.StatusBadRequest {
			t.Errorf("multipart, %s: %d %s, want 400", name, res.Status, res.Body)
		}
	}
	if n, acts := count(t, s); n != 0 || acts != 0 {
		t.Errorf("refusals wrote %d documents and %d activity entries", n, acts)
	}
}

// The upload's own limit: a file over MaxUpload is 413 and writes nothing;
// one at the limit passes (above the server's 1 MiB default).
func TestUploadLimit(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	at := bytes.Repeat([]byte("a"), documents.MaxUpload)
	if d := created(t, upload(t, ann.Session, file("big.txt", "text/plain", at))); d["size"] != float64(documents.MaxUpload) {
		t.Errorf("at the limit: %v", d)
	}
	if res := upload(t, ann.Session, file("big.txt", "text/plain", append(at, 'b'))); res.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("one byte over: %d %s, want 413", res.Status, res.Body)
	}
	over := bytes.Repeat([]byte{0xff}, documents.UploadBodyLimit+1)
	if res := upload(t, ann.Session, file("big.bin", "", over)); res.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the route's limit: %d %s, want 413", res.Status, res.Body)
	}
	if n, _ := count(t, s); n != 1 {
		t.Errorf("%d documents, want 1", n)
	}
}

// The plain routes follow the gate like their twins: session only, the CSRF
// rule on the upload, no API key.
func TestPlainRoutesFollowTheGate(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	d := created(t, upload(t, ann.Session, file("a.txt", "text/plain", []byte("x"))))
	raw := "/api/documents/" + d["id"].(string) + "/raw"
	if res := s.Anonymous().Do(http.MethodGet, raw, nil); res.Status != http.StatusUnauthorized {
		t.Errorf("anonymous raw: %d", res.Status)
	}
	if res := upload(t, s.Anonymous(), file("a.txt", "text/plain", []byte("x"))); res.Status != http.StatusUnauthorized {
		t.Errorf("anonymous upload: %d", res.Status)
	}
	key := s.WithKey(ann.NewKey("agent"))
	if res := key.Do(http.MethodGet, raw, nil); res.Status != http.StatusForbidden {
		t.Errorf("raw with an API key: %d, want 403", res.Status)
	}
	if res := upload(t, key, file("a.txt", "text/plain", []byte("x"))); res.Status != http.StatusForbidden {
		t.Errorf("upload with an API key: %d, want 403", res.Status)
	}
	if res := ann.Session.Do(http.MethodPost, "/api/documents", []byte("--x--"), "Content-Type", "multipart/form-data; boundary=x", "Origin", "https://evil.example"); res.Status != http.StatusForbidden {
		t.Errorf("cross-site upload: %d %s, want 403", res.Status, res.Body)
	}
	if res := upload(t, ann.Session, file("a.txt", "text/plain", []byte("x"))); res.Status != http.StatusCreated {
		t.Errorf("same-origin upload: %d", res.Status)
	}
	if n, _ := count(t, s); n != 2 {
		t.Errorf("%d documents, want 2", n)
	}
}

// A store agent's delivery (written as server/store/review writes it, and as
// it was written before types and sizes were recorded) is read like the
// others, source marketplace.
func TestStoreDeliveryIsReadable(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	ctx := context.Background()
	now := s.Clock.Now()
	output := `{"summary":"Three leads found"}`
	current, err := s.DB.Document.Create().SetUserID(ann.ID).SetTitle("Lead finder: find leads").SetContent(output).
		SetMimeType("text/plain").SetSize(len(output)).SetSource("marketplace").SetSharedBy("Lead finder").
		SetExecutionID("ckexec0000000000000000001").SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := s.DB.Document.Create().SetUserID(ann.ID).SetTitle("Old delivery").SetContent("earlier output").
		SetSource("marketplace").SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if legacy.MimeType != "text/plain" || legacy.Size != nil {
		t.Fatalf("a delivery without a type: %q, size %v", legacy.MimeType, legacy.Size)
	}
	c := content(t, ann.Session, current.ID)
	if c["content"] != output || c["source"] != "marketplace" || c["document"].(map[string]any)["sharedBy"] != "Lead finder" {
		t.Errorf("delivery content: %v", c)
	}
	if c := content(t, ann.Session, legacy.ID); c["content"] != "earlier output" || c["source"] != "marketplace" {
		t.Errorf("older delivery content: %v", c)
	}
	list := ann.Session.Do(http.MethodGet, "/api/documents", nil).JSON(t)["documents"].([]any)
	if len(list) != 2 {
		t.Fatalf("list: %v", list)
	}
	for _, d := range list {
		d := d.(map[string]any)
		if d["source"] != "marketplace" {
			t.Errorf("listed delivery: %v", d)
		}
		if d["id"] == legacy.ID && d["size"] != nil {
			t.Errorf("older delivery's size: %v, want null", d["size"])
		}
	}
	if n, err := s.DB.Document.Query().Where(document.SourceEQ("marketplace")).Count(ctx); err != nil || n != 2 {
		t.Errorf("%d marketplace documents, %v", n, err)
	}
}
