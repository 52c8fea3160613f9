package window

import "testing"

func TestCheckLink(t *testing.T) {
	for _, ok := range []string{"https://example.com/a?b=c#d", "http://127.0.0.1:8080/", "mailto:someone@example.com", "HTTPS://EXAMPLE.COM"} {
		if _, err := CheckLink(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "wails://wails/index.html",
		"https://", "https:///path", "mailto:", "vbscript:x", "https://example.com/\nx", "ftp://example.com/", "/relative", "#frag"} {
		if u, err := CheckLink(bad); err == nil {
			t.Errorf("%q accepted as %q", bad, u)
		}
	}
}
