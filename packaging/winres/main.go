// Command winres writes what the Windows build of Agent Hub carries besides
// its code: a COFF resource object for go build (the icon in the sizes
// Explorer and the taskbar use, version information, and a manifest: per-
// monitor DPI awareness, common controls v6, long paths, run as the
// invoking user) and the same icon as an .ico file for the installer.
//
//	go run ./packaging/winres -icon build/appicon.png -version 1.2.3 \
//	    -syso rsrc_windows_amd64.syso -ico build/dist/windows/agenthub.ico
//
// go build links a *_windows_amd64.syso in the main package's directory
// into windows/amd64 builds only (make windows writes it and removes it
// after the build).
package main

import (
	"flag"
	"fmt"
	"image"
	_ "image/png"
	"os"
	"strconv"
	"strings"

	"github.com/tc-hib/winres"
	"github.com/tc-hib/winres/version"
)

func main() {
	icon := flag.String("icon", "build/appicon.png", "the app icon (PNG, square, at least 256 px)")
	ver := flag.String("version", "0.0.0", "the product version (digits and dots first; the rest is kept as text)")
	syso := flag.String("syso", "", "where to write the resource object (required)")
	ico := flag.String("ico", "", "where to write the .ico (optional)")
	flag.Parse()
	if *syso == "" {
		fmt.Fprintln(os.Stderr, "winres: -syso is required")
		os.Exit(2)
	}
	if err := run(*icon, *ver, *syso, *ico); err != nil {
		fmt.Fprintln(os.Stderr, "winres:", err)
		os.Exit(1)
	}
}

func run(iconPath, ver, sysoPath, icoPath string) error {
	f, err := os.Open(iconPath)
	if err != nil {
		return err
	}
	img, _, err := image.Decode(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", iconPath, err)
	}
	icon, err := winres.NewIconFromResizedImage(img, []int{256, 64, 48, 32, 24, 16})
	if err != nil {
		return fmt.Errorf("icon: %w", err)
	}
	rs := winres.ResourceSet{}
	if err := rs.SetIcon(winres.Name("APPICON"), icon); err != nil {
		return fmt.Errorf("icon: %w", err)
	}
	num := numericVersion(ver)
	vi := version.Info{FileVersion: num, ProductVersion: num}
	for k, v := range map[string]string{
		version.ProductName: "Agent Hub", version.FileDescription: "Agent Hub",
		version.ProductVersion: ver, version.FileVersion: ver,
		version.OriginalFilename: "agenthub.exe", version.InternalName: "agenthub",
	} {
		if err := vi.Set(0, k, v); err != nil {
			return fmt.Errorf("version info: %w", err)
		}
	}
	rs.SetVersionInfo(vi)
	rs.SetManifest(winres.AppManifest{
		Compatibility:       winres.Win10AndAbove,
		ExecutionLevel:      winres.AsInvoker,
		DPIAwareness:        winres.DPIPerMonitorV2,
		UseCommonControlsV6: true,
		LongPathAware:       true,
	})
	out, err := os.Create(sysoPath)
	if err != nil {
		return err
	}
	if err := rs.WriteObject(out, winres.ArchAMD64); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", sysoPath, err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	if icoPath == "" {
		return nil
	}
	w, err := os.Create(icoPath)
	if err != nil {
		return err
	}
	if err := icon.SaveICO(w); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", icoPath, err)
	}
	return w.Close()
}

// numericVersion is the leading a.b.c.d of v (missing parts 0): "1.2.3-4-gabc"
// gives 1.2.3.0, "0.0.0~git…" 0.0.0.0.
func numericVersion(v string) [4]uint16 {
	var out [4]uint16
	for i, part := range strings.SplitN(v, ".", 4) {
		end := strings.IndexFunc(part, func(r rune) bool { return r < '0' || r > '9' })
		if end == 0 {
			break
		}
		if end > 0 {
			part = part[:end]
		}
		n, err := strconv.ParseUint(part, 10, 16)
		if err != nil {
			break
		}
		out[i] = uint16(n)
		if end > 0 {
			break
		}
	}
	return out
}
