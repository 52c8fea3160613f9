// Command icongen writes the application icon in the freedesktop hicolor
// sizes, scaled from one PNG, for the Debian package (make package):
//
//	go run ./packaging/icongen -in build/appicon.png -out build/dist/icons
//
// makes OUT/hicolor/NxN/apps/agenthub.png for N in 16…512.
package main

import (
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"golang.org/x/image/draw"
)

// Sizes are the hicolor sizes the package installs.
var Sizes = []int{16, 24, 32, 48, 64, 128, 256, 512}

func main() {
	in := flag.String("in", "build/appicon.png", "the source icon (PNG)")
	out := flag.String("out", "build/dist/icons", "where the hicolor tree is written")
	name := flag.String("name", "agenthub", "the icon's name (the .desktop entry's Icon=)")
	flag.Parse()
	if err := run(*in, *out, *name); err != nil {
		fmt.Fprintln(os.Stderr, "icongen:", err)
		os.Exit(1)
	}
}

// run scales in to every size and writes OUT/hicolor/NxN/apps/NAME.png.
func run(in, out, name string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	for _, n := range Sizes {
		dst := image.NewNRGBA(image.Rect(0, 0, n, n))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		dir := filepath.Join(out, "hicolor", fmt.Sprintf("%dx%d", n, n), "apps")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		w, err := os.Create(filepath.Join(dir, name+".png"))
		if err != nil {
			return err
		}
		if err := png.Encode(w, dst); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	return nil
}
