package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"agenthub/app/apptest"
)

// The desktop bench (`make bench-desktop`, under xvfb-run): Agent Hub's
// desktop binary against a bare Wails v2 window built with the same
// toolchain and tags in the same run (bench/barewails).

// window is one launch of a desktop binary.
type window struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string   // Agent Hub's test-control lines after ready (prefix stripped)
	ready   time.Duration // exec → the page reported it has loaded
	exited  chan struct{}
	readyCh chan struct{}
}

// launch starts bin with args and env and returns once its page reported
// ready (isReady on a stdout line), or an error after timeout.
func launch(ctx context.Context, bin string, args, env []string, isReady func(string) bool, timeout time.Duration) (*window, error) {
	w := &window{exited: make(chan struct{}), readyCh: make(chan struct{}), lines: make(chan string, 4096)}
	w.cmd = exec.CommandContext(ctx, bin, args...)
	w.cmd.Env = env
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w.cmd.Stderr = io.Discard
	var err error
	if w.stdin, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	began := time.Now()
	if err := w.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		seen := false
		defer close(w.lines)
		for sc.Scan() {
			if !seen && isReady(sc.Text()) {
				seen = true
				w.ready = time.Since(began)
				close(w.readyCh)
				continue
			}
			if text, ok := strings.CutPrefix(sc.Text(), "agenthub-test: "); ok && seen {
				select {
				case w.lines <- text:
				default: // nobody is listening (the cold-start runs)
				}
			}
		}
	}()
	go func() {
		_ = w.cmd.Wait()
		close(w.exited)
	}()
	select {
	case <-w.readyCh:
		return w, nil
	case <-w.exited:
		return nil, fmt.Errorf("%s exited before its page was ready", bin)
	case <-time.After(timeout):
		w.kill()
		return nil, fmt.Errorf("%s: page not ready within %s", bin, timeout)
	}
}

// kill ends the window and every process of its group (WebKit's helpers).
func (w *window) kill() {
	_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
	<-w.exited
}

// treePSS is the proportional set size of pid and all its descendants
// (the WebKit web and network processes), from smaps_rollup.
func treePSS(pid int) (int64, int, string) {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		children[pp] = append(children[pp], p)
	}
	var sum int64
	n := 0
	var parts []string
	var walk func(int)
	walk = func(p int) {
		v := pss(p)
		sum += v
		n++
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/comm")
		parts = append(parts, fmt.Sprintf("%s %s", strings.TrimSpace(string(comm)), mb(v)))
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return sum, n, strings.Join(parts, ", ")
}

// pss is the proportional set size of a process in bytes.
func pss(pid int) int64 { return apptest.ProcKB(pid, "smaps_rollup", "Pss:") }

// desktopRun is one binary's cold starts and idle memory.
type desktopRun struct {
	name     string
	starts   []time.Duration
	pss      []int64
	procs    int
	parts    string // the last launch's PSS per process
	settle   time.Duration
	failures []string
}

// desktopBench launches each binary rounds times, alternating, measuring
// exec → page ready and the tree's PSS after settle.
func desktopBench(ctx context.Context, hubBin, bareBin string, rounds int, settle time.Duration) ([2]desktopRun, error) {
	if os.Getenv("DISPLAY") == "" {
		return [2]desktopRun{}, fmt.Errorf("no DISPLAY: run under xvfb-run -a (make bench-desktop does)")
	}
	runs := [2]desktopRun{{name: "bare Wails v2 window", settle: settle}, {name: "Agent Hub desktop", settle: settle}}
	root, err := os.MkdirTemp("", "agenthub-bench-desktop-")
	if err != nil {
		return runs, err
	}
	defer os.RemoveAll(root)
	// Both binaries start from disk, as after a reboot or an install: a
	// binary the linker has just written sits in the page cache in large
	// folios, and each fault then maps far more of it than the program
	// touches (Agent Hub's desktop binary: ≈ 38 MB mapped at idle instead
	// of ≈ 23 MB), which would measure how the file was written rather
	// than what the program uses. The first launch of each reads its
	// binary back; later ones find it cached as that launch left it.
	for _, bin := range []string{hubBin, bareBin} {
		if err := dropCached(bin); err != nil {
			return runs, err
		}
	}
	env := apptest.Env()
	for i := range rounds {
		for k := range runs {
			var w *window
			var err error
			if k == 0 {
				w, err = launch(ctx, bareBin, nil, env, func(s string) bool { return s == "ready" }, time.Minute)
			} else {
				// A fresh data directory each round: a first launch, as a
				// new user's. Test control only reports the page's load.
				dir := filepath.Join(root, fmt.Sprint("hub", i))
				args := []string{"--data-dir", filepath.Join(dir, "data"), "--workspace", root, "--smoke-test", dir}
				w, err = launch(ctx, hubBin, args, append(env, "AGENTHUB_TEST_CONTROL=stdio"),
					func(s string) bool {
						return strings.HasPrefix(s, "agenthub-test: ") && strings.Contains(s, `"event":"report"`)
					}, time.Minute)
			}
			if err != nil {
				runs[k].failures = append(runs[k].failures, err.Error())
				continue
			}
			runs[k].starts = append(runs[k].starts, w.ready)
			select {
			case <-time.After(settle):
			case <-ctx.Done():
				w.kill()
				return runs, ctx.Err()
			}
			p, n, parts := treePSS(w.cmd.Process.Pid)
			runs[k].pss = append(runs[k].pss, p)
			runs[k].procs, runs[k].parts = n, parts
			w.kill()
		}
	}
	for k := range runs {
		slices.Sort(runs[k].starts)
		slices.Sort(runs[k].pss)
		if len(runs[k].starts) == 0 {
			return runs, fmt.Errorf("%s never became ready: %v", runs[k].name, runs[k].failures)
		}
	}
	return runs, nil
}

func median[T any](s []T) T { return s[len(s)/2] }

// dropCached asks the kernel to drop the file's pages from the page cache
// (posix_fadvise DONTNEED; pages mapped by a running process stay). It
// writes the file back first: DONTNEED drops clean pages only, and a binary
// the linker has just written is still dirty, so without the write-back
// the first launch after a build could find it cached.
func dropCached(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s back before dropping it: %w", path, err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("drop %s from the page cache: %w", path, err)
	}
	return nil
}

// writeDesktop renders docs/benchmarks-desktop.md.
func writeDesktop(dir string, runs [2]desktopRun, streams []windowRun, began time.Time, rounds int) error {
	var w strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&w, format+"\n", a...) }
	bare, hub := runs[0], runs[1]
	p("# Desktop benchmarks")
	p("")
	p("Generated by `make bench-desktop` (`bench/`, `-desktop`) on %s UTC under `xvfb-run`: %d cores (%s), load average %s at the end.",
		began.UTC().Format("2006-01-02 15:04"), numCPU(), cpuModel(), loadavg())
	p("")
	p("Agent Hub's desktop binary (`build/bin/agenthub-smoketest`: the product build plus the test harness, `-tags smoketest`; Wails v2 + WebKitGTK) against a bare Wails v2 window")
	p("(`bench/barewails`: one static page) built with the same Go toolchain, Wails version and tags")
	p("(`-tags desktop,production,webkit2_41`) in the same run. %d launches each, alternating; medians.", rounds)
	p("Cold start = exec → the page reports it has loaded (the bare page's `load` handler emits a Wails event; Agent")
	p("Hub's page reports through its test hooks, `AGENTHUB_TEST_CONTROL=stdio`, after the app has mounted). Agent")
	p("Hub starts with a fresh data directory each time (a first launch), the dashboard port off (the default).")
	p("Idle PSS = the proportional set size of the process and all its descendants (WebKit's web and network")
	p("processes), %s after the page was ready. Neither window composites on a GPU here: the bare one passes no", hub.settle)
	p("Linux options (Wails then never accelerates, wails#2977) and Agent Hub accelerates only where a")
	p("`/dev/dri/renderD*` node opens (`AGENTHUB_WEBVIEW_GPU`), which this machine lacks — on-demand compositing on")
	p("llvmpipe had cost ~75 MB in the web process.")
	p("")
	p("| | %s | %s | Agent Hub ÷ bare (target ≤ 1.2×) |", bare.name, hub.name)
	p("|---|---|---|---|")
	rs, rp := float64(median(hub.starts))/float64(median(bare.starts)), float64(median(hub.pss))/float64(median(bare.pss))
	p("| cold start, median (min–max) | %s (%s–%s) | %s (%s–%s) | %.2f× %s |", ms(median(bare.starts)), ms(bare.starts[0]), ms(bare.starts[len(bare.starts)-1]),
		ms(median(hub.starts)), ms(hub.starts[0]), ms(hub.starts[len(hub.starts)-1]), rs, ok(rs <= 1.2))
	p("| idle PSS of the process tree, median | %s (%d processes) | %s (%d processes) | %.2f× %s |", mb(median(bare.pss)), bare.procs, mb(median(hub.pss)), hub.procs, rp, ok(rp <= 1.2))
	p("")
	p("Per process (last launch): %s: %s; %s: %s.", bare.name, bare.parts, hub.name, hub.parts)
	p("")
	p("Both binaries are written back and dropped from the page cache before the first launch, so each starts from disk as after")
	p("a reboot or an install; later launches find them cached as the first left them. (A binary the linker has")
	p("just written sits in the page cache in large folios, and each fault then maps far more of it than the")
	p("program touches: Agent Hub's desktop binary had ≈ 38 MB mapped at idle that way, ≈ 23 MB read back by exec.)")
	p("")
	p("The hub process's excess over the bare window is mostly its own binary (≈ 23 MB mapped at idle against")
	p("≈ 7 MB). Wails v2's bindings call `reflect.Value.MethodByName` (`internal/binding.(*Bindings).getMethods`,")
	p("found with `go build -ldflags=-dumpdep`), so the Go linker keeps every exported method of every reachable")
	p("type. The LLM adapters therefore hold only the two services they call (Anthropic's Messages, OpenAI's Chat")
	p("Completions), not the SDKs' `Client` types, which reach every service of both APIs: that took the desktop")
	p("binary's code and read-only data from 72 to 46 MB (`app/llm`). Without GPU compositing the window also turns")
	p("WebKitGTK's DMA-BUF renderer off (`app/gpu.go`), which otherwise brings EGL and Mesa's llvmpipe into the UI")
	p("process for frames the CPU draws anyway (≈ 4.7 MB). The rest is the web process: the React page's heap and")
	p("the parts of WebKit and JavaScriptCore it exercises.")
	p("")
	for _, r := range runs {
		if len(r.failures) > 0 {
			p("Launches of %s that failed: %s", r.name, strings.Join(r.failures, "; "))
			p("")
		}
	}
	if len(streams) > 0 {
		p("## Streaming into the window")
		p("")
		p("One unpaced burst of %d text deltas from the fake Anthropic server (real SSE) into a fresh session open in", streams[0].n)
		p("the window, with a dashboard client on the same session. *Rendered* = first delta sent → the page painted the")
		p("finished message with every delta (polled through the test hooks' `paint`, which waits two animation")
		p("frames: an upper bound). The page's frame meter (a `requestAnimationFrame` loop) gives the frames drawn and")
		p("the longest gap between two frames while the burst streamed and rendered. Memory = PSS of the process tree")
		p("before the burst and %s after the message finished rendering (transcript reports off).", streams[0].settleWait)
		p("")
		p("| window transport | server side (dashboard client) | rendered in the window | deltas/s into the webview | frames drawn | longest gap between frames | PSS before → after | added by the message (target ≤ 100 MB) |")
		p("|---|---|---|---|---|---|---|---|")
		for _, r := range streams {
			added := r.pssAfter - r.pssBefore
			p("| %s | %s | %s | %.0f | %d | %s | %s → %s | %s %s |", r.mode, ms(r.server), ms(r.rendered), r.rate(), r.frames, ms(r.maxGap),
				mb(r.pssBefore), mb(r.pssAfter), mb(added), ok(added <= 100<<20))
		}
		p("")
		for _, r := range streams {
			p("Per process, %s: before %s; after %s.", r.mode, r.partsBefore, r.partsAfter)
			p("")
		}
	}
	return os.WriteFile(filepath.Join(dir, "benchmarks-desktop.md"), []byte(w.String()), 0o644)
}
