//go:build !windows

package sandbox

// platformEnvNames: nothing beyond baseEnvNames off Windows.
var platformEnvNames []string

// envNameIs compares environment names as Unix does: exactly.
func envNameIs(name, want string) bool { return name == want }
