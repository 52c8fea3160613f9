package window

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// LinkSchemes are the URL schemes the window hands to the system browser.
var LinkSchemes = []string{"http", "https", "mailto"}

// CheckLink validates a link the page wants opened: an absolute http or
// https URL with a host, or a mailto URL, without control characters. It
// returns the URL as it will be opened, or an error saying why not.
func CheckLink(raw string) (string, error) {
	if raw == "" || len(raw) > 8192 || strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", errors.New("not a valid link")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("not a valid link: %w", err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "", errors.New("a web link needs a host")
		}
	case "mailto":
		if u.Opaque == "" && u.Path == "" {
			return "", errors.New("a mailto link needs an address")
		}
	default:
		return "", fmt.Errorf("links of scheme %q are not opened (only %s)", u.Scheme, strings.Join(LinkSchemes, ", "))
	}
	return u.String(), nil
}

// OpenLink opens an http, https or mailto link from the page in the system
// browser (runtime.BrowserOpenURL, i.e. xdg-open on Linux). Other links are
// refused with an error the page shows as a notice.
func (s *Shell) OpenLink(link string) error {
	u, err := CheckLink(link)
	if err != nil {
		return err
	}
	ctx := s.Context()
	if ctx == nil {
		return errors.New("the window is not ready")
	}
	runtime.BrowserOpenURL(ctx, u)
	return nil
}
