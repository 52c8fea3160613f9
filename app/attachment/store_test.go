package attachment

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pngOf encodes a w×h image; alpha < 255 makes it transparent.
func pngOf(t *testing.T, w, h int, alpha uint8) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x), G: uint8(y), B: 90, A: alpha})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func blobs(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return n
}

func TestPutDeduplicatesByContent(t *testing.T) {
	s := New(t.TempDir())
	img := pngOf(t, 40, 30, 255)
	a, err := s.Put("shot.png", "image/png", img)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Put("again.png", "application/octet-stream", img)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != b.ID || a.Name != "shot.png" || b.Name != "again.png" {
		t.Fatalf("two uploads of the same bytes: %+v and %+v", a, b)
	}
	if a.Kind != KindImage || a.MediaType != "image/png" || a.Width != 40 || a.Height != 30 || a.Resized || a.Bytes != int64(len(img)) {
		t.Fatalf("info = %+v", a)
	}
	if n := blobs(t, s.Dir()); n != 1 {
		t.Fatalf("%d blobs stored, want 1", n)
	}
	// A store opened again on the directory (a restart) serves the blob.
	info, data, err := New(s.Dir()).Get(a.ID)
	if err != nil || !bytes.Equal(data, img) || info.Width != 40 || info.MediaType != "image/png" {
		t.Fatalf("Get after reopening = %+v, %d bytes, %v", info, len(data), err)
	}
}

func TestPutResizesLargeImages(t *testing.T) {
	s := New(t.TempDir())
	opaque, err := s.Put("wide.png", "image/png", pngOf(t, 3136, 1000, 255))
	if err != nil {
		t.Fatal(err)
	}
	if !opaque.Resized || opaque.Width != MaxEdge || opaque.Height != 500 || opaque.MediaType != "image/jpeg" {
		t.Fatalf("an opaque 3136×1000 PNG is stored as %+v, want a 1568×500 JPEG", opaque)
	}
	clear, err := s.Put("tall.png", "image/png", pngOf(t, 400, 2000, 128))
	if err != nil {
		t.Fatal(err)
	}
	if !clear.Resized || clear.Height != MaxEdge || clear.Width != 313 || clear.MediaType != "image/png" {
		t.Fatalf("a transparent 400×2000 PNG is stored as %+v, want a 313×1568 PNG", clear)
	}
	_, data, err := s.Get(clear.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Height != MaxEdge {
		t.Fatalf("stored bytes: %+v %v", cfg, err)
	}
}

func TestPutFlattensAnimatedGIFs(t *testing.T) {
	pal := color.Palette{color.Black, color.White}
	g := &gif.GIF{}
	for i := 0; i < 2; i++ {
		g.Image = append(g.Image, image.NewPaletted(image.Rect(0, 0, 20, 10), pal))
		g.Delay = append(g.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		t.Fatal(err)
	}
	info, err := New(t.TempDir()).Put("anim.gif", "image/gif", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if info.MediaType == "image/gif" || info.Width != 20 || info.Height != 10 {
		t.Fatalf("an animated GIF is stored as %+v, want one still frame", info)
	}
}

func TestPutAcceptsWebP(t *testing.T) {
	// A 1×1 lossless WebP.
	webp, err := base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	if err != nil {
		t.Fatal(err)
	}
	info, err := New(t.TempDir()).Put("dot.webp", "", webp)
	if err != nil {
		t.Fatal(err)
	}
	if info.MediaType != "image/webp" || info.Width != 1 || info.Height != 1 || info.Resized {
		t.Fatalf("info = %+v", info)
	}
}

func TestPutText(t *testing.T) {
	s := New(t.TempDir())
	info, err := s.Put("../../notes.md", "text/markdown", []byte("# Notes\nfirst\n"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != KindText || info.Name != "notes.md" || info.MediaType != "text/markdown; charset=utf-8" || info.Bytes != 14 {
		t.Fatalf("info = %+v", info)
	}
	if info, _ := s.Put("data.csv", "application/x-evil\"", []byte("a,b\n")); info.MediaType != "text/plain; charset=utf-8" {
		t.Fatalf("a non-text claim gives %q", info.MediaType)
	}
}

func TestPutRefusesWithClearErrors(t *testing.T) {
	s := New(t.TempDir())
	for _, tc := range []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"empty.txt", nil, ErrUnsupported, "is empty"},
		{"tool.bin", []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}, ErrUnsupported, "PNG, JPEG, GIF or WebP"},
		{"doc.pdf", []byte("%PDF-1.7\n\x00\x01"), ErrUnsupported, "application/pdf"},
		{"bmp.bmp", append([]byte("BM"), make([]byte, 60)...), ErrUnsupported, "image/bmp"},
		{"big.txt", bytes.Repeat([]byte("a"), MaxTextBytes+1), ErrTooLarge, "at most 256 KB"},
		{"huge.png", make([]byte, MaxUploadBytes+1), ErrTooLarge, "at most 20.0 MB"},
		{"broken.png", pngOf(t, 10, 10, 255)[:60], ErrUnsupported, "not a readable image/png"},
		{"bomb.png", pngHeader(100_000, 100_000), ErrTooLarge, "megapixels"},
	} {
		_, err := s.Put(tc.name, "", tc.data)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), tc.name) && tc.data != nil {
			t.Errorf("Put(%s) = %v, want %v saying %q", tc.name, err, tc.want, tc.says)
		}
	}
	if n := blobs(t, s.Dir()); n != 0 {
		t.Fatalf("%d blobs stored by refused uploads", n)
	}
}

// pngHeader is the start of a PNG that claims w×h pixels (signature and
// IHDR only): enough for DecodeConfig, nothing to decode.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestGetRefusesHostileIDs(t *testing.T) {
	s := New(t.TempDir())
	for _, id := range []string{"", "../../etc/passwd", strings.Repeat("A", 64), strings.Repeat("0", 63), strings.Repeat("0", 64)} {
		if _, _, err := s.Get(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func ExampleStore_Put() {
	dir, _ := os.MkdirTemp("", "attachments")
	defer os.RemoveAll(dir)
	s := New(dir)
	a, _ := s.Put("notes.txt", "text/plain", []byte("hello\n"))
	b, _ := s.Put("copy.txt", "text/plain", []byte("hello\n"))
	fmt.Println(a.Kind, a.Bytes, a.ID == b.ID)
	// Output: text 6 true
}

// An upload of bytes already stored marks the blob as fresh, so a sweep
// spares it until the message that names it is sent.
func TestPutAgainRefreshesTheBlob(t *testing.T) {
	s := New(t.TempDir())
	a, err := s.Put("a.txt", "", []byte("same"))
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(filepath.Join(s.Dir(), s.rel(a.ID)), old, old); err != nil {
		t.Fatal(err)
	}
	if ids, err := s.Stale(time.Now().Add(-time.Hour)); err != nil || len(ids) != 1 || ids[0] != a.ID {
		t.Fatalf("Stale = %v, %v", ids, err)
	}
	if _, err := s.Put("b.txt", "", []byte("same")); err != nil {
		t.Fatal(err)
	}
	if ids, err := s.Stale(time.Now().Add(-time.Hour)); err != nil || len(ids) != 0 {
		t.Fatalf("after a re-upload Stale = %v, %v", ids, err)
	}
	if err := s.Remove(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get(a.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Remove: %v", err)
	}
	if ids, err := New(filepath.Join(t.TempDir(), "missing")).Stale(time.Now()); err != nil || len(ids) != 0 {
		t.Fatalf("Stale of a missing dir = %v, %v", ids, err)
	}
}
