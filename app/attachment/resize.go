package attachment

import (
	"bytes"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers the WebP decoder with package image
)

// Image bounds: what both providers take without rejecting or re-scaling.
// Anthropic rejects images over 8000 px a side and 5 MB (base64) and
// scales anything with a long edge over 1568 px down itself; OpenAI takes
// up to 20 MB and 2048 px. So: a long edge of at most MaxEdge pixels and at
// most MaxImageBytes stored (5 MB once base64-encoded).
const (
	MaxEdge       = 1568
	MaxImageBytes = 3_750_000
	// MaxPixels bounds the pixels of an image that is decoded (a
	// decompression bomb is refused before any pixel is allocated).
	MaxPixels = 25_000_000
)

// normalised is an image as it is stored.
type normalised struct {
	data          []byte
	mediaType     string
	width, height int
	resized       bool
}

// normaliseImage checks an image of the sniffed type and returns the bytes
// to store: the upload itself when it is within the bounds (and, for a GIF,
// not animated), else a copy scaled to a long edge of MaxEdge, as PNG when
// the image has transparency and JPEG otherwise.
func normaliseImage(data []byte, mediaType string) (normalised, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return normalised{}, refuse(ErrUnsupported, "not a readable %s image (%v)", mediaType, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return normalised{}, refuse(ErrUnsupported, "an image of %d×%d pixels", cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return normalised{}, refuse(ErrTooLarge, "%d×%d pixels is more than %d megapixels", cfg.Width, cfg.Height, MaxPixels/1_000_000)
	}
	// Decoded whole even when kept as it is: a truncated or corrupt
	// image is refused here, not by the provider mid-turn.
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return normalised{}, refuse(ErrUnsupported, "not a readable %s image (%v)", mediaType, err)
	}
	animated := format == "gif" && gifFrames(data) > 1
	if max(cfg.Width, cfg.Height) <= MaxEdge && len(data) <= MaxImageBytes && !animated {
		return normalised{data: data, mediaType: mediaType, width: cfg.Width, height: cfg.Height}, nil
	}
	w, h := fit(cfg.Width, cfg.Height, MaxEdge)
	for {
		out, err := encodeScaled(src, w, h)
		if err != nil {
			return normalised{}, err
		}
		if len(out.data) <= MaxImageBytes || w <= 64 {
			out.resized = true
			return out, nil
		}
		// Still too many bytes (a noisy PNG): shrink on.
		w, h = fit(w, h, max(w, h)*3/4)
	}
}

// encodeScaled draws src at w×h and encodes it: PNG when it has
// transparency, JPEG (quality 85) otherwise.
func encodeScaled(src image.Image, w, h int) (normalised, error) {
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	var buf bytes.Buffer
	if dst.Opaque() {
		if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85}); err != nil {
			return normalised{}, fmt.Errorf("encoding the resized image: %w", err)
		}
		return normalised{data: buf.Bytes(), mediaType: "image/jpeg", width: w, height: h}, nil
	}
	if err := png.Encode(&buf, dst); err != nil {
		return normalised{}, fmt.Errorf("encoding the resized image: %w", err)
	}
	return normalised{data: buf.Bytes(), mediaType: "image/png", width: w, height: h}, nil
}

// fit scales w×h so its long edge is at most edge, keeping the aspect
// ratio (never below one pixel a side).
func fit(w, h, edge int) (int, int) {
	long := max(w, h)
	if long <= edge {
		return w, h
	}
	nw := max(1, int(int64(w)*int64(edge)/int64(long)))
	nh := max(1, int(int64(h)*int64(edge)/int64(long)))
	return nw, nh
}

// gifFrames counts a GIF's frames (0 when it cannot be decoded).
func gifFrames(data []byte) int {
	g, err := gif.DecodeAll(bytes.NewReader(data))
	if err != nil {
		return 0
	}
	return len(g.Image)
}

// imageSize is a stored image's pixel size (0, 0 when unreadable).
func imageSize(data []byte) (int, int) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0
	}
	return cfg.Width, cfg.Height
}
