package app

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
