package tool

import (
	"os"
	"os/exec"
	"path/filepath"
)

// defaultShell is bash's shell on Windows (FindWindowsShell over this
// process's environment and file system).
func defaultShell() string {
	return FindWindowsShell(os.Getenv, exec.LookPath, func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	})
}

// FindWindowsShell is Git for Windows' bash.exe where it is installed
// (machine-wide, per user, or next to the git.exe on Path), otherwise
// Windows PowerShell. It never picks System32\bash.exe, WSL's launcher,
// which runs the command in a Linux system instead of the workspace's.
func FindWindowsShell(getenv func(string) string, lookPath func(string) (string, error), isFile func(string) bool) string {
	var candidates []string
	for _, v := range []string{"ProgramW6432", "ProgramFiles", "LOCALAPPDATA"} {
		if d := getenv(v); d != "" {
			sub := "Git"
			if v == "LOCALAPPDATA" {
				sub = filepath.Join("Programs", "Git")
			}
			candidates = append(candidates, filepath.Join(d, sub, "bin", "bash.exe"))
		}
	}
	if git, err := lookPath("git.exe"); err == nil && filepath.IsAbs(git) {
		// Git\cmd\git.exe or Git\bin\git.exe (or mingw64\bin\git.exe).
		d := filepath.Dir(filepath.Dir(git))
		candidates = append(candidates, filepath.Join(d, "bin", "bash.exe"), filepath.Join(filepath.Dir(d), "bin", "bash.exe"))
	}
	for _, c := range candidates {
		if isFile(c) {
			return c
		}
	}
	root := getenv("SystemRoot")
	if root == "" {
		root = `C:\Windows`
	}
	return filepath.Join(root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe")
}
