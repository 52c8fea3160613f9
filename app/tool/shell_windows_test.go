package tool

import (
	"errors"
	"testing"
)

func TestFindWindowsShell(t *testing.T) {
	env := map[string]string{`ProgramFiles`: `C:\Program Files`, `ProgramW6432`: `C:\Program Files`, `LOCALAPPDATA`: `C:\Users\u\AppData\Local`, `SystemRoot`: `C:\Windows`}
	noGit := func(string) (string, error) { return "", errors.New("not found") }
	for _, c := range []struct {
		name  string
		files []string
		git   func(string) (string, error)
		want  string
	}{
		{"Git for Windows machine-wide", []string{`C:\Program Files\Git\bin\bash.exe`}, noGit, `C:\Program Files\Git\bin\bash.exe`},
		{"per user", []string{`C:\Users\u\AppData\Local\Programs\Git\bin\bash.exe`}, noGit, `C:\Users\u\AppData\Local\Programs\Git\bin\bash.exe`},
		{"next to git.exe on Path", []string{`D:\tools\Git\bin\bash.exe`},
			func(string) (string, error) { return `D:\tools\Git\cmd\git.exe`, nil }, `D:\tools\Git\bin\bash.exe`},
		{"git.exe from mingw64", []string{`D:\tools\Git\bin\bash.exe`},
			func(string) (string, error) { return `D:\tools\Git\mingw64\bin\git.exe`, nil }, `D:\tools\Git\bin\bash.exe`},
		// WSL's launcher is never taken for Git's bash: PowerShell instead.
		{"only WSL", []string{`C:\Windows\System32\bash.exe`}, noGit, `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`},
		{"a relative git.exe is ignored", []string{`Git\bin\bash.exe`},
			func(string) (string, error) { return `Git\cmd\git.exe`, nil }, `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`},
	} {
		isFile := func(p string) bool {
			for _, f := range c.files {
				if f == p {
					return true
				}
			}
			return false
		}
		if got := FindWindowsShell(func(k string) string { return env[k] }, c.git, isFile); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
