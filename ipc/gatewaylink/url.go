package gatewaylink

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// ValidateURL checks a gateway URL: http(s):// or ws(s):// with a host, no
// credentials, query or fragment. A plain http:// or ws:// gateway is
// allowed only on a loopback address unless insecure is set: everything
// the hub says, and every device's token, would cross the network in clear.
// It returns the URL the Socket.io client dials (ws → http, wss → https).
func ValidateURL(raw string, insecure bool) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("gateway URL %q: %w", raw, err)
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	case "http", "https":
	default:
		return "", fmt.Errorf("gateway URL %q: want https://HOST[:PORT] (or wss://)", raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("gateway URL %q: no host", raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("gateway URL %q: no credentials, query or fragment, please", raw)
	}
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		return "", fmt.Errorf("gateway URL %q: no path (the gateway's Socket.io path is /ws)", raw)
	}
	u.Path = ""
	if u.Scheme == "http" && !insecure && !loopback(u.Hostname()) {
		return "", fmt.Errorf("gateway URL %q: plain http/ws to a non-loopback host sends the hub's traffic and the devices' tokens in clear; use https/wss, or --gateway-insecure on a network you trust", raw)
	}
	return u.String(), nil
}

// loopback reports whether host is localhost or a loopback IP.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
