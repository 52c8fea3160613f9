package window

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// EnvWebviewGPU overrides the window's WebKitGTK hardware-acceleration
// policy on Linux: "on-demand", "always" or "never" (anything else: the
// default below).
const EnvWebviewGPU = "AGENTHUB_WEBVIEW_GPU"

// webviewGPUPolicy picks the window's hardware-acceleration policy: the
// EnvWebviewGPU override if set, else on-demand when renderNode reports a
// GPU render node the process can open, else never. Without a GPU (a VM,
// a remote X session, CI) WebKitGTK's on-demand compositing runs on
// llvmpipe, the software GL: every composited layer is rasterised by the
// CPU into its own buffers, which costs CPU on every frame and, measured
// here, ~100 MB more in the web process than the same page without it
// (docs/benchmarks-desktop.md). Wails itself defaults to never when an app
// passes no Linux options (wails#2977: blank windows on some GPU drivers).
func webviewGPUPolicy(getenv func(string) string, renderNode func() bool) linux.WebviewGpuPolicy {
	switch strings.ToLower(strings.TrimSpace(getenv(EnvWebviewGPU))) {
	case "on-demand", "ondemand":
		return linux.WebviewGpuPolicyOnDemand
	case "always":
		return linux.WebviewGpuPolicyAlways
	case "never":
		return linux.WebviewGpuPolicyNever
	}
	if renderNode() {
		return linux.WebviewGpuPolicyOnDemand
	}
	return linux.WebviewGpuPolicyNever
}

// envWebKitDMABufOff is WebKitGTK's own switch (2.42+) for its DMA-BUF
// renderer, the path by which the web process hands drawn frames to the
// window.
const envWebKitDMABufOff = "WEBKIT_DISABLE_DMABUF_RENDERER"

// dmabufRendererOff reports whether the window turns WebKitGTK's DMA-BUF
// renderer off: when it does not composite on the GPU (policy never) and
// the environment leaves the switch unset (or empty). The page is then drawn
// by the CPU either way and reaches the window through shared memory;
// setting the DMA-BUF renderer up only brings EGL and Mesa's driver into
// the UI process (without a GPU, llvmpipe): ≈ 4.7 MB of its PSS, measured
// with docs/benchmarks-desktop.md's harness.
func dmabufRendererOff(policy linux.WebviewGpuPolicy, getenv func(string) string) bool {
	return policy == linux.WebviewGpuPolicyNever && getenv(envWebKitDMABufOff) == ""
}

// gpuRenderNode reports whether a DRM render node (/dev/dri/renderD*) can
// be opened for reading and writing, as a GL driver would.
func gpuRenderNode() bool {
	nodes, _ := filepath.Glob("/dev/dri/renderD*")
	for _, n := range nodes {
		if f, err := os.OpenFile(n, os.O_RDWR, 0); err == nil {
			_ = f.Close()
			return true
		}
	}
	return false
}
