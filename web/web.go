// Package web serves the operator's dashboard: the single-page app built from
// this directory's TypeScript by `npm run build` into dist/, committed (CI
// rebuilds it and fails on drift) and embedded in the binary, so serving it
// needs no Node.js.
//
// Only the built files are served: "/" is index.html and every other file
// answers at its own path. Routing inside the app uses the URL fragment
// (/#/queue), so no API, Connect, reflection or health path is ever shadowed.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

//go:embed all:dist
var dist embed.FS

// ContentSecurityPolicy is the page's policy: scripts, styles and calls from
// this origin only (the build has no inline script or style), no framing.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

type variant struct {
	body []byte
	etag string
}

type file struct {
	name  string // for the content type and ServeContent
	ctype string
	cache string
	html  bool
	plain variant
	// gz is the gzipped variant, made on the first read of the file (not at
	// start: compressing the whole build cost ~20 ms of every start, issue
	// 34); nil, or answering nil, when compression does not pay.
	gz func() *variant
}

// Site is the embedded dashboard, read once at start.
type Site struct {
	files map[string]*file
}

// New answers the embedded build, read once per process (each file is
// gzipped on its first read): a Site never changes after it is made, so every server of the
// process (a test binary starts hundreds) shares one. It fails when the build
// is missing its page.
func New() (*Site, error) { return embedded() }

var embedded = sync.OnceValues(func() (*Site, error) { return newSite(dist) })

func newSite(fsys fs.FS) (*Site, error) {
	root, err := fs.Sub(fsys, "dist")
	if err != nil {
		return nil, err
	}
	s := &Site{files: map[string]*file{}}
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		f := newFile(p, body)
		urlPath := "/" + p
		if p == "index.html" {
			urlPath = "/"
		}
		s.files[urlPath] = f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: read the embedded build: %w", err)
	}
	if _, ok := s.files["/"]; !ok {
		return nil, fmt.Errorf("web: the embedded build has no index.html: run npm run build in web/")
	}
	return s, nil
}

func newFile(p string, body []byte) *file {
	ext := path.Ext(p)
	ctype := mime.TypeByExtension(ext)
	switch ext {
	case ".js":
		ctype = "text/javascript; charset=utf-8"
	case ".html":
		ctype = "text/html; charset=utf-8"
	case ".svg":
		ctype = "image/svg+xml"
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	f := &file{name: path.Base(p), ctype: ctype, html: ext == ".html", plain: variant{body: body, etag: etagOf(body, "")}}
	switch {
	case strings.HasPrefix(p, "assets/"):
		// Vite names these by content hash: a changed file is a new name.
		f.cache = "public, max-age=31536000, immutable"
	default:
		// index.html and the other fixed names: revalidate every time (ETag).
		f.cache = "no-cache"
	}
	if compressible(ctype) && len(body) > 512 {
		f.gz = sync.OnceValue(func() *variant { return gzipped(body) })
	}
	return f
}

// gzipped is body compressed, or nil when that does not make it smaller.
func gzipped(body []byte) *variant {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil
	}
	if _, err := zw.Write(body); err != nil {
		return nil
	}
	if err := zw.Close(); err != nil || buf.Len() >= len(body) {
		return nil
	}
	return &variant{body: buf.Bytes(), etag: etagOf(body, "-gzip")}
}

func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "javascript") ||
		strings.Contains(ctype, "json") || strings.Contains(ctype, "svg")
}

func etagOf(body []byte, suffix string) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + suffix + `"`
}

// Serves tells whether r is a read of one of the dashboard's files.
func (s *Site) Serves(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	_, ok := s.files[r.URL.Path]
	return ok
}

// ServeHTTP answers a read of a dashboard file (gzipped when the client takes
// it) with its security and cache headers; anything else is 404.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := s.files[r.URL.Path]
	if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Cache-Control", f.cache)
	h.Set("X-Content-Type-Options", "nosniff")
	if f.html {
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
	}
	v := f.plain
	if f.gz != nil {
		if gz := f.gz(); gz != nil {
			h.Add("Vary", "Accept-Encoding")
			if acceptsGzip(r.Header.Get("Accept-Encoding")) {
				v = *gz
				h.Set("Content-Encoding", "gzip")
			}
		}
	}
	h.Set("ETag", v.etag)
	// A zero time: no Last-Modified; the ETag answers conditional requests.
	http.ServeContent(w, r, f.name, time.Time{}, bytes.NewReader(v.body))
}

// acceptsGzip reads Accept-Encoding for gzip with a non-zero weight.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
