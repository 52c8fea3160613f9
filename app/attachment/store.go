// Package attachment keeps the files a user attaches to a message (pasted
// screenshots, dropped images and text files): content-addressed under a
// directory, so the same bytes are stored once however often they are
// attached. Images are normalised on the way in to what both providers
// accept (resize.go); text files are kept as they are, within bounds.
package attachment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"agenthub/app/confine"
	"agenthub/ipc"
)

// Bounds of an upload.
const (
	// MaxUploadBytes bounds the bytes of one upload (an image before it is
	// resized, or a text file).
	MaxUploadBytes = 20 << 20
	// MaxTextBytes bounds a text file: its whole content goes into the
	// user message the model reads.
	MaxTextBytes = 256 << 10
	// MaxNameBytes bounds a file name as given by the client.
	MaxNameBytes = 255
)

// Kinds of attachment.
const (
	KindImage = "image"
	KindText  = "text"
)

// Errors of Put and Get. Callers map them to protocol errors with errors.Is.
var (
	// ErrNotFound: no attachment has that id.
	ErrNotFound = errors.New("attachment not found")
	// ErrTooLarge: the upload is past a bound (MaxUploadBytes, MaxTextBytes,
	// MaxPixels).
	ErrTooLarge = errors.New("attachment too large")
	// ErrUnsupported: the bytes are neither a PNG, JPEG, GIF or WebP image
	// nor UTF-8 text, or the image cannot be decoded.
	ErrUnsupported = errors.New("unsupported attachment")
)

// Error is a refused upload: Error() is the reason as the user reads it
// (naming the file and what would be accepted); errors.Is matches Kind
// (ErrTooLarge or ErrUnsupported).
type Error struct {
	Reason string
	Kind   error
}

func (e *Error) Error() string { return e.Reason }

// Unwrap returns Kind.
func (e *Error) Unwrap() error { return e.Kind }

// refuse returns an *Error of kind with the formatted reason.
func refuse(kind error, format string, args ...any) error {
	return &Error{Reason: fmt.Sprintf(format, args...), Kind: kind}
}

// Info describes a stored attachment: ipc.AttachmentInfo, the wire form
// of an upload's answer. ID is the SHA-256 of the stored bytes, lowercase
// hex (equal content, equal id; the name is not part of it); Kind is
// KindImage or KindText; Width, Height and Resized describe an image as
// stored, after any resize.
type Info = ipc.AttachmentInfo

// Store is a directory of attachments named by content hash
// (DIR/ab/abcdef…). It is safe for concurrent use: a blob is written to a
// temporary file and renamed into place, and equal content yields the
// same file. Every read and write goes through the directory (an
// os.Root, app/confine): a symlink in it never leads a blob outside.
type Store struct {
	dir string
}

// New returns the store rooted at dir; the directory is created on the
// first Put.
func New(dir string) *Store { return &Store{dir: dir} }

// Dir is the directory the store keeps its blobs in.
func (s *Store) Dir() string { return s.dir }

// Put stores data uploaded as name (mediaType is the client's claim; the
// bytes decide). Images are resized to the providers' limits first; text
// must be valid UTF-8 without NUL bytes. It returns the stored content's
// Info; an upload whose bytes are already stored is not written again.
func (s *Store) Put(name, mediaType string, data []byte) (Info, error) {
	name = CleanName(name)
	if len(data) == 0 {
		return Info{}, refuse(ErrUnsupported, "%s is empty", quoted(name))
	}
	if len(data) > MaxUploadBytes {
		return Info{}, refuse(ErrTooLarge, "%s is %s; attachments are at most %s", quoted(name), humanBytes(int64(len(data))), humanBytes(MaxUploadBytes))
	}
	info := Info{Name: name}
	if sniffed := http.DetectContentType(data); imageTypes[sniffed] {
		img, err := normaliseImage(data, sniffed)
		if err != nil {
			var re *Error
			if errors.As(err, &re) {
				return Info{}, refuse(re.Kind, "%s: %s", quoted(name), re.Reason)
			}
			return Info{}, fmt.Errorf("%s: %w", quoted(name), err)
		}
		data = img.data
		info.Kind, info.MediaType, info.Width, info.Height, info.Resized = KindImage, img.mediaType, img.width, img.height, img.resized
	} else {
		if !isText(data) {
			return Info{}, refuse(ErrUnsupported, "%s is %s, which cannot be attached: attach PNG, JPEG, GIF or WebP images or UTF-8 text files",
				quoted(name), describeType(sniffed))
		}
		if len(data) > MaxTextBytes {
			return Info{}, refuse(ErrTooLarge, "%s is %s; text files are attached whole, at most %s", quoted(name), humanBytes(int64(len(data))), humanBytes(MaxTextBytes))
		}
		info.Kind, info.MediaType = KindText, textMediaType(mediaType)
	}
	sum := sha256.Sum256(data)
	info.ID = hex.EncodeToString(sum[:])
	info.Bytes = int64(len(data))
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return Info{}, fmt.Errorf("attachment: %w", err)
	}
	d, err := confine.Open(s.dir, nil)
	if err != nil {
		return Info{}, fmt.Errorf("attachment: %w", err)
	}
	defer d.Close()
	rel := s.rel(info.ID)
	if fi, err := d.Lstat(rel); err == nil && fi.Mode().IsRegular() {
		// Stored already: mark it as uploaded now, so a sweep spares it
		// until the message that will name it is sent.
		now := time.Now()
		_ = d.Chtimes(rel, now, now)
		return info, nil
	}
	if err := d.MkdirAll(filepath.Dir(rel), 0o700); err != nil {
		return Info{}, fmt.Errorf("attachment: %w", err)
	}
	if err := d.WriteFile(rel, data, 0o600); err != nil {
		return Info{}, fmt.Errorf("attachment: storing %s: %w", quoted(name), err)
	}
	return info, nil
}

// Get returns the stored bytes of id and their Info (without a Name).
// A malformed id is ErrNotFound, never a path.
func (s *Store) Get(id string) (Info, []byte, error) {
	if !ValidID(id) {
		return Info{}, nil, fmt.Errorf("%q: %w", id, ErrNotFound)
	}
	data, err := s.read(id)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, confine.ErrOutside) || errors.Is(err, confine.ErrNotRegular) {
		return Info{}, nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Info{}, nil, fmt.Errorf("attachment %s: %w", id, err)
	}
	info := Info{ID: id, Bytes: int64(len(data))}
	if t := http.DetectContentType(data); imageTypes[t] {
		info.Kind, info.MediaType = KindImage, t
		info.Width, info.Height = imageSize(data)
	} else {
		info.Kind, info.MediaType = KindText, textMediaType("")
	}
	return info, data, nil
}

// ValidID reports whether id has the form of an attachment id (64
// lowercase hex digits).
func ValidID(id string) bool {
	if len(id) != sha256.Size*2 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// rel is where the blob of id is kept, relative to the store's directory.
func (s *Store) rel(id string) string { return filepath.Join(id[:2], id) }

// read reads the blob of id: a regular file inside the store (opened
// through it, app/confine: a symlink planted in the store leads nowhere).
func (s *Store) read(id string) ([]byte, error) {
	d, err := confine.Open(s.dir, nil)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	f, fi, err := d.Open(s.rel(id))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.IsDir() {
		return nil, confine.ErrNotRegular
	}
	return io.ReadAll(io.LimitReader(f, MaxUploadBytes+1))
}

// imageTypes are the image formats both providers accept (as sniffed).
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// isText reports whether data is UTF-8 text without NUL bytes.
func isText(data []byte) bool {
	return utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
}

// textMediaType keeps a client's text/* claim (without parameters) and
// says UTF-8; anything else is text/plain.
func textMediaType(claim string) string {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(claim)), ";")
	base = strings.TrimSpace(base)
	if strings.HasPrefix(base, "text/") && len(base) < 64 && !strings.ContainsAny(base, " \t\r\n\"") {
		return base + "; charset=utf-8"
	}
	return "text/plain; charset=utf-8"
}

// describeType names a sniffed type for an error.
func describeType(sniffed string) string {
	base, _, _ := strings.Cut(sniffed, ";")
	switch {
	case base == "application/octet-stream":
		return "binary data"
	case strings.HasPrefix(base, "image/"):
		return "an " + base + " image"
	}
	return base
}

// CleanName is the last element of a client's file name, bounded to
// MaxNameBytes, without control characters ("" when nothing is left).
func CleanName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	for len(name) > MaxNameBytes {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "." || name == ".." {
		return ""
	}
	return name
}

func quoted(name string) string {
	if name == "" {
		return "the file"
	}
	return fmt.Sprintf("%q", name)
}

// humanBytes renders n as "12 KB" / "3.4 MB".
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
