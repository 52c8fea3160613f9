package window

import (
	"testing"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// The window composites on the GPU only where one can be opened; the
// environment overrides either way.
func TestWebviewGPUPolicy(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvWebviewGPU {
				return v
			}
			return ""
		}
	}
	yes, no := func() bool { return true }, func() bool { return false }
	for _, c := range []struct {
		env  string
		node func() bool
		want linux.WebviewGpuPolicy
	}{
		{"", yes, linux.WebviewGpuPolicyOnDemand},
		{"", no, linux.WebviewGpuPolicyNever},
		{"always", no, linux.WebviewGpuPolicyAlways},
		{" On-Demand ", no, linux.WebviewGpuPolicyOnDemand},
		{"never", yes, linux.WebviewGpuPolicyNever},
		{"sometimes", yes, linux.WebviewGpuPolicyOnDemand}, // unknown: the default
	} {
		if got := webviewGPUPolicy(env(c.env), c.node); got != c.want {
			t.Errorf("%s=%q, render node %v: policy %v, want %v", EnvWebviewGPU, c.env, c.node(), got, c.want)
		}
	}
}

// Without GPU compositing the window turns WebKit's DMA-BUF renderer off,
// unless the environment sets WebKit's switch itself.
func TestDMABufRendererOff(t *testing.T) {
	unset := func(string) string { return "" }
	userSet := func(k string) string {
		if k == envWebKitDMABufOff {
			return "0"
		}
		return ""
	}
	for _, c := range []struct {
		policy linux.WebviewGpuPolicy
		getenv func(string) string
		want   bool
	}{
		{linux.WebviewGpuPolicyNever, unset, true},
		{linux.WebviewGpuPolicyNever, userSet, false},
		{linux.WebviewGpuPolicyOnDemand, unset, false},
		{linux.WebviewGpuPolicyAlways, unset, false},
	} {
		if got := dmabufRendererOff(c.policy, c.getenv); got != c.want {
			t.Errorf("policy %v, %s=%q: %v, want %v", c.policy, envWebKitDMABufOff, c.getenv(envWebKitDMABufOff), got, c.want)
		}
	}
}
