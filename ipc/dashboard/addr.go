package dashboard

import (
	"fmt"
	"net"
	"strconv"
)

// ValidateAddr checks that addr is HOST:PORT with a loopback host
// (127.0.0.0/8, ::1 or localhost) and a numeric port in 0..65535.
// The dashboard never binds a wildcard or external address.
func ValidateAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT: %w", addr, err)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: bad port %q", addr, port)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q: the dashboard binds loopback only (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}
