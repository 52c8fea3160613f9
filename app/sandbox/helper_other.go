//go:build !linux

package sandbox

import (
	"sync/atomic"
	"syscall"
)

var selfDispatches atomic.Bool

// Probe reports that nothing is enforced: the sandbox is Linux-only.
func Probe() Support { return Support{} }

func probeHelper(string) Support { return Support{} }

// sysProcAttr: nothing to add where the sandbox is not enforced.
func sysProcAttr(bool) *syscall.SysProcAttr { return nil }

func runStage1([]string) int { return failf("the sandbox needs Linux") }
func runStage2([]string) int { return failf("the sandbox needs Linux") }
func runProbe() int          { return failf("the sandbox needs Linux") }

// ProbeAndProtect does nothing where the sandbox is not enforced.
func ProbeAndProtect() (Support, error) { return Support{}, nil }

// Descendants finds nothing without /proc.
func Descendants(int) []int { return nil }
