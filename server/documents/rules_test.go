package documents

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

// pngBytes is a small PNG made by image/png.
func pngBytes(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestClassify(t *testing.T) {
	t.Parallel()
	pic := pngBytes(t)
	cases := []struct {
		name, declared, file string
		data                 []byte
		want                 Kind
		refused              bool
	}{
		{"plain text", "text/plain; charset=utf-8", "a.txt", []byte("hello"), Kind{"text/plain", true}, false},
		{"markdown by extension", "", "notes.md", []byte("# Title"), Kind{"text/markdown", true}, false},
		{"markdown declared octet-stream", "application/octet-stream", "notes.markdown", []byte("# T"), Kind{"text/markdown", true}, false},
		{"json", "application/json", "a.json", []byte(`{"a":[1,2]}`), Kind{"application/json", true}, false},
		{"json that does not parse", "application/json", "a.json", []byte(`{"a":`), Kind{}, true},
		{"csv", "text/csv", "a.csv", []byte("a,b\n1,2\n"), Kind{"text/csv", true}, false},
		{"csv with NUL", "text/csv", "a.csv", []byte("a,\x00b\n"), Kind{}, true},
		{"text that is not UTF-8", "text/plain", "a.txt", []byte("caf\xe9"), Kind{}, true},
		{"png declared as text is a png", "text/plain", "a.txt", pic, Kind{"image/png", false}, false},
		{"png declared octet-stream", "application/octet-stream", "pic", pic, Kind{"image/png", false}, false},
		{"png declared as jpeg is a png", "image/jpeg", "pic.jpg", pic, Kind{"image/png", false}, false},
		{"unknown text without a type", "", "README", []byte("plain words"), Kind{"text/plain", true}, false},
		{"latin-1 without a type", "", "old", []byte("caf\xe9"), Kind{"application/octet-stream", false}, false},
		{"html stays binary", "text/html", "x.html", []byte("<html><script>1</script>"), Kind{"text/html", false}, false},
		{"html without a type is sniffed", "", "x", []byte("<html><body>x"), Kind{"text/html", false}, false},
		{"declared type kept without a signature", "application/yaml", "a.yaml", []byte("a: 1\n"), Kind{"application/yaml", false}, false},
		{"empty file", "", "empty", nil, Kind{"text/plain", true}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Classify(tc.declared, tc.file, tc.data)
			if tc.refused {
				if err == nil {
					t.Fatalf("Classify = %+v, want a refusal", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Classify = %+v, %v; want %+v", got, err, tc.want)
			}
			if got.Text != IsText(got.MimeType) {
				t.Fatalf("%+v: text must be exactly the text types", got)
			}
		})
	}
}

// RULINGS "The assistant": content is cut at 8,000 characters, not bytes.
func TestCutCountsCharacters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text      string
		want      string
		truncated bool
		total     int
	}{
		{"", "", false, 0},
		{"abc", "abc", false, 3},
		{strings.Repeat("é", 8000), strings.Repeat("é", 8000), false, 8000},
		{strings.Repeat("日", 8001), strings.Repeat("日", 8000), true, 8001},
		{strings.Repeat("a", 7999) + "🙂🙂", strings.Repeat("a", 7999) + "🙂", true, 8001},
	} {
		got, truncated, total := Cut(tc.text, ContentLimit)
		if got != tc.want || truncated != tc.truncated || total != tc.total {
			t.Errorf("Cut(%d bytes) = %d bytes, %v, %d; want %d bytes, %v, %d",
				len(tc.text), len(got), truncated, total, len(tc.want), tc.truncated, tc.total)
		}
	}
}

func TestDisposition(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ title, mime, want string }{
		{"chart.png", "image/png", `inline; filename=chart.png`},
		{"page", "text/html", `attachment; filename=page`},
		{`a "quoted"/name`, "application/zip", `attachment; filename="a \"quoted\"_name"`},
		{"Café\r\nX-Evil: 1", "text/plain", `inline; filename*=utf-8''Caf%C3%A9__X-Evil%3A%201`},
	} {
		if got := Disposition(tc.title, tc.mime); got != tc.want {
			t.Errorf("Disposition(%q, %q) = %q, want %q", tc.title, tc.mime, got, tc.want)
		}
	}
}
