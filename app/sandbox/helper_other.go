//go:build !linux

package sandbox

import (
	"runtime"
	"sync/atomic"
	"syscall"
)

var selfDispatches atomic.Bool

// Probe reports that nothing is enforced: the sandbox is Linux-only.
func Probe() Support { return Support{System: systemName()} }

func probeHelper(string) Support { return Probe() }

// systemName is this operating system's name as its users know it.
func systemName() string {
	switch runtime.GOOS {
	case "windows":
		return "Windows"
	case "darwin":
		return "macOS"
	}
	return runtime.GOOS
}

// sysProcAttr: nothing to add where the sandbox is not enforced.
func sysProcAttr(bool) *syscall.SysProcAttr { return nil }

func runStage1([]string) int { return failf("the sandbox needs Linux") }
func runStage2([]string) int { return failf("the sandbox needs Linux") }
func runProbe() int          { return failf("the sandbox needs Linux") }

// ProbeAndProtect does nothing where the sandbox is not enforced.
func ProbeAndProtect() (Support, error) { return Probe(), nil }

// Descendants finds nothing without /proc.
func Descendants(int) []int { return nil }
