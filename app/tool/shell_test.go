package tool

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf16"
)

// PowerShell gets the line encoded (no Windows command-line quoting can
// change it) and the model and the card are told the shell is PowerShell.
func TestPowerShellArgvAndDescription(t *testing.T) {
	shell := `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`
	line := `Get-ChildItem "a b" | % { $_.Name }; echo 'é' \" & exit 3`
	argv := shellArgv(shell, line)
	if len(argv) != 6 || argv[0] != shell || argv[4] != "-EncodedCommand" {
		t.Fatalf("argv %q", argv)
	}
	b, err := base64.StdEncoding.DecodeString(argv[5])
	if err != nil || len(b)%2 != 0 {
		t.Fatalf("encoded %q: %v", argv[5], err)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	if got := string(utf16.Decode(u)); got != line {
		t.Errorf("decoded %q, want %q", got, line)
	}
	tl, _ := Lookup(BuiltinsWithOptions(nil, Options{Shell: shell}), "bash")
	if d := tl.Description(); !strings.Contains(d, "PowerShell command") || strings.Contains(d, "/bin/bash") {
		t.Errorf("description %q", d)
	}
	if !strings.Contains(string(tl.Schema()), "The PowerShell command line") {
		t.Errorf("schema %s", tl.Schema())
	}
	if _, sum := tl.Describe(bashInputJSON("Get-Date", 0)); !strings.Contains(sum, "with PowerShell") || !strings.Contains(sum, "```powershell") {
		t.Errorf("summary %q", sum)
	}
	for _, s := range []string{"/bin/bash", `C:\Program Files\Git\bin\bash.exe`, "/usr/bin/pwsh-like"} {
		if KindOf(s) != PosixShell || shellArgv(s, "x")[1] != "-c" {
			t.Errorf("%s: not a -c shell", s)
		}
	}
	if KindOf("/usr/bin/pwsh") != PowerShell {
		t.Error("pwsh is PowerShell")
	}
	// Linux keeps its description word for word.
	tl, _ = Lookup(BuiltinsWithOptions(nil, Options{Shell: "/bin/bash"}), "bash")
	if !strings.HasPrefix(tl.Description(), "Run a shell command with /bin/bash -c in the session workspace") {
		t.Errorf("description %q", tl.Description())
	}
}
