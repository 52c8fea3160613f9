package tool

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"
)

// ShellKind is how a shell takes its command line.
type ShellKind int

// The shells bash runs a command with.
const (
	// PosixShell takes `-c line`: /bin/bash, or Git for Windows' bash.exe.
	PosixShell ShellKind = iota
	// PowerShell takes the line UTF-16LE base64-encoded (-EncodedCommand),
	// so no quoting of the Windows command line can change it.
	PowerShell
)

// KindOf is the kind of the shell at path, by its file name.
func KindOf(path string) ShellKind {
	base := strings.ToLower(path[strings.LastIndexAny(path, `/\`)+1:])
	switch strings.TrimSuffix(base, ".exe") {
	case "powershell", "pwsh":
		return PowerShell
	}
	return PosixShell
}

// shellArgv is the argv that runs line with shell.
func shellArgv(shell, line string) []string {
	if KindOf(shell) == PowerShell {
		u := utf16.Encode([]rune(line))
		b := make([]byte, 2*len(u))
		for i, c := range u {
			b[2*i], b[2*i+1] = byte(c), byte(c>>8)
		}
		return []string{shell, "-NoLogo", "-NoProfile", "-NonInteractive", "-EncodedCommand", base64.StdEncoding.EncodeToString(b)}
	}
	return []string{shell, "-c", line}
}

// shellName names shell for the model and the tool card: "/bin/bash",
// "bash (Git for Windows)", "PowerShell".
func shellName(shell string) string {
	switch {
	case KindOf(shell) == PowerShell:
		return "PowerShell"
	case strings.Contains(shell, `\`):
		return "bash (Git for Windows)"
	}
	return shell
}
