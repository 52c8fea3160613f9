# Agent Hub — build, run and test.
#
#   make run    install what is missing, build the desktop binary, launch it
#               (with no display: --headless, printing the dashboard URL)
#   make test   the same installs, then every check CI runs
#   make windows / make package-windows
#               the Windows app (desktop + headless .exe) and its setup.exe
#               (docs/platforms.md)
#
# The desktop test harness (--smoke-test, the stdin test-control channel,
# the page's test hooks) is compiled only with the smoketest tag, into
# build/bin/agenthub-smoketest (make smoketest), which embeds the frontend
# built in smoketest mode (frontend/dist-smoketest). `make build` and any
# plain go build have none of it (docs/testing.md).
#
# Installs are idempotent: apt packages only when missing (and only as root),
# npm ci only when node_modules is missing or older than the lock file.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := run

export GOFLAGS := -mod=mod
export CGO_ENABLED := 1

VERSION      ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
DESKTOP_TAGS := desktop,production,webkit2_41
BIN          := build/bin/agenthub
SMOKE_TAGS   := $(DESKTOP_TAGS),smoketest
SMOKE_BIN    := build/bin/agenthub-smoketest
HEADLESS_BIN := build/bin/agenthub-headless
# Symbols only the smoketest build may contain: `make build` checks its
# binary has none of them, `make smoketest` that its binary has them.
TEST_CONTROL_SYMBOLS := smoke|testcontrol|TestReport|FrameStats|BenchEmit
# The LLM SDKs' Client types: with Wails' reflective bindings linking one
# keeps every method of every service of its API (26 MB more of the desktop
# binary; docs/benchmarks-desktop.md). app/llm holds the services it calls.
SDK_CLIENT_SYMBOLS := (anthropic-sdk-go|openai-go/v3)\.(NewClient|\(\*Client\))
ARTIFACTS    := artifacts
# A Debian version must start with a digit (packaging/deb-version.sh).
DEB_VERSION  ?= $(shell packaging/deb-version.sh)
DEB          := build/dist/agenthub_$(DEB_VERSION)_amd64.deb
ARGS         ?=
APT_PACKAGES := libgtk-3-dev libwebkit2gtk-4.1-dev pkg-config xvfb xauth imagemagick gcc libc6-dev git chromium dbus-daemon gnome-keyring
# What the Windows build and its tests need here: makensis for the
# installer, wine64 to run the Windows test binaries, mingw for the
# bcryptprimitives.dll stand-in wine lacks (scripts/wine-exec.sh).
WINDOWS_APT_PACKAGES := nsis wine64 gcc-mingw-w64-x86-64-win32
WIN_BIN      := build/bin/agenthub.exe
WIN_HEADLESS := build/bin/agenthub-headless.exe
WIN_DIST     := build/dist/windows
WIN_SETUP    := build/dist/agenthub-$(DEB_VERSION)-setup.exe
WIN_SYSO     := rsrc_windows_amd64.syso
# Microsoft's Evergreen WebView2 Bootstrapper, as the Wails module ships it
# (a Go module, so it comes through the Go proxy); WEBVIEW2_STANDALONE=path
# to Microsoft's Evergreen Standalone Installer makes an offline setup.exe.
WEBVIEW2_BOOTSTRAPPER = $(shell go list -m -f '{{.Dir}}' github.com/wailsapp/wails/v2)/internal/webview2runtime/MicrosoftEdgeWebview2Setup.exe
WEBVIEW2_STANDALONE ?=
# The Windows code paths run under wine: every package with Windows code.
WINE_TEST_PKGS := ./app/ ./app/jobobject/ ./app/mcp/ ./app/tool/ ./app/confine/... ./app/instructions/ ./app/mention/ ./app/sandbox/
# The e2e tests the headless .exe passes under wine (scripts/wine-headless.sh):
# the dashboard's reference clients and the browser's credentials; the rest
# run bash, and wine has no shell (docs/platforms.md).
WINE_E2E     := ^(TestSeed000ReferenceClient|TestSeed002Client|TestNoCredentialInCookie)$$
NPM_STAMP    := frontend/node_modules/.package-lock.json
GO_FILES      = $(shell git ls-files -co --exclude-standard -- '*.go')

.PHONY: run build headless smoketest package windows package-windows deps-windows test-cross test-windows deps deps-system frontend frontend-smoketest test test-go test-frontend test-bindings test-desktop test-package test-stress faults bench bench-gateway bench-desktop clean

## ---- installs -------------------------------------------------------------

deps: deps-system $(NPM_STAMP)

deps-system:
	@command -v go >/dev/null || { echo "Go is not installed (need Go 1.26+)" >&2; exit 1; }
	@command -v npm >/dev/null || { echo "Node.js 20.19+ with npm is not installed" >&2; exit 1; }
	@$(call apt_install,$(APT_PACKAGES),exit 1)

# The Windows packages: installed as root, otherwise named. Missing ones
# only skip test-windows (make test says so); make windows needs none,
# make package-windows needs nsis (and installs it itself as root).
deps-windows:
	@$(call apt_install,$(WINDOWS_APT_PACKAGES),true)

# apt_install PACKAGES, WHAT-TO-DO-WHEN-MISSING-AND-NOT-ROOT: installs the
# missing Debian packages as root, idempotently.
define apt_install
missing=""; for p in $(1); do \
  dpkg -s "$$p" >/dev/null 2>&1 || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
  if [ "$$(id -u)" = 0 ]; then \
    echo "apt: installing$$missing"; \
    apt-get update -qq; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
  else \
    echo "missing Debian packages:$$missing — install them with: sudo apt-get install$$missing" >&2; $(2); \
  fi; \
fi
endef

# npm ci rewrites node_modules/.package-lock.json, so this re-runs only when
# the lock (or package.json) is newer than the installed tree.
$(NPM_STAMP): frontend/package-lock.json frontend/package.json
	cd frontend && npm ci --no-audit --no-fund
	@touch $@

## ---- build ----------------------------------------------------------------

# The Go binary embeds frontend/dist, so the frontend is built first.
frontend: $(NPM_STAMP)
	cd frontend && ./node_modules/.bin/vite build --logLevel warn

build: deps frontend
	go build -tags $(DESKTOP_TAGS) -ldflags "-X main.version=$(VERSION)" -o $(BIN) .
	@found="$$(go tool nm $(BIN) | grep -i -E '$(TEST_CONTROL_SYMBOLS)' || true)"; \
	if [ -n "$$found" ]; then echo "$(BIN) contains test-control code:" >&2; echo "$$found" >&2; exit 1; fi
	@echo "built $(BIN) ($(VERSION))"

# The frontend with the page's test hooks, for the smoketest binary.
frontend-smoketest: $(NPM_STAMP)
	cd frontend && ./node_modules/.bin/vite build --logLevel warn --mode smoketest --outDir dist-smoketest

# The desktop binary the desktop tests and bench-desktop drive: the product
# plus the test harness (tag smoketest), embedding frontend/dist-smoketest.
smoketest: deps frontend-smoketest
	go build -tags $(SMOKE_TAGS) -ldflags "-X main.version=$(VERSION)" -o $(SMOKE_BIN) .
	@go tool nm $(SMOKE_BIN) | grep -E 'TestReport' >/dev/null || { echo "$(SMOKE_BIN) lacks the test harness" >&2; exit 1; }
	@! go tool nm $(SMOKE_BIN) | grep -E '$(SDK_CLIENT_SYMBOLS)' || { echo "$(SMOKE_BIN) links an LLM SDK's Client type (see SDK_CLIENT_SYMBOLS)" >&2; exit 1; }
	@echo "built $(SMOKE_BIN) ($(VERSION))"

# The cgo-free headless binary of DESIGN.md §3 (no tags, no GTK). The Go
# tests that run the real binary (main_test.go, e2e/) use this one build
# instead of compiling under their own timeouts.
headless: frontend
	CGO_ENABLED=0 go build -ldflags "-X main.version=$(VERSION)" -o $(HEADLESS_BIN) .

# The Debian package (packaging/nfpm.yaml, nfpm pinned as a Go tool): the
# desktop binary, the desktop entry, the icon in the hicolor sizes (scaled
# from build/appicon.png now), the README and the --help text as docs.
package: build
	rm -rf build/dist/icons build/dist/doc $(DEB)
	go run ./packaging/icongen -in build/appicon.png -out build/dist/icons
	mkdir -p build/dist/doc
	./$(BIN) --help > build/dist/doc/usage.txt
	VERSION="$(DEB_VERSION)" ARCH=amd64 go tool nfpm package --config packaging/nfpm.yaml --packager deb --target $(DEB)
	@echo "built $(DEB)"

# The Windows app, cross-compiled without cgo (Wails' Windows backend is
# Go over WebView2): the desktop binary (GUI subsystem; --help and
# --headless attach to the console they were started from) and the
# headless one (a console program), each with the icon, version and
# manifest of packaging/winres linked in.
windows: frontend
	@mkdir -p $(WIN_DIST)
	go run ./packaging/winres -icon build/appicon.png -version "$(DEB_VERSION)" -syso $(WIN_SYSO) -ico $(WIN_DIST)/agenthub.ico
	trap 'rm -f $(WIN_SYSO)' EXIT; \
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -tags desktop,production -ldflags "-H windowsgui -X main.version=$(VERSION)" -o $(WIN_BIN) . && \
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -ldflags "-X main.version=$(VERSION)" -o $(WIN_HEADLESS) .
	@found="$$(go tool nm $(WIN_BIN) | grep -i -E '$(TEST_CONTROL_SYMBOLS)' || true)"; \
	if [ -n "$$found" ]; then echo "$(WIN_BIN) contains test-control code:" >&2; echo "$$found" >&2; exit 1; fi
	@echo "built $(WIN_BIN) and $(WIN_HEADLESS) ($(VERSION))"

# The Windows installer (packaging/windows/agenthub.nsi, NSIS from Debian):
# a per-user setup.exe with the desktop binary, a Start-menu entry, the
# icon, an uninstaller and the WebView2 installer for machines without
# the Runtime.
package-windows: windows
	@$(call apt_install,nsis,exit 1)
	@wv2="$(WEBVIEW2_BOOTSTRAPPER)"; standalone=""; \
	if [ -n "$(WEBVIEW2_STANDALONE)" ]; then wv2="$(abspath $(WEBVIEW2_STANDALONE))"; standalone="-DWEBVIEW2_STANDALONE"; fi; \
	test -s "$$wv2" || { echo "no WebView2 installer at $$wv2" >&2; exit 1; }; \
	v4="$$(echo '$(DEB_VERSION)' | grep -oE '^[0-9]+(\.[0-9]+){0,3}' || echo 0)"; \
	while [ "$$(echo "$$v4" | tr -cd . | wc -c)" -lt 3 ]; do v4="$$v4.0"; done; \
	rm -f $(WIN_SETUP); \
	makensis -V2 -NOCD -DVERSION="$(DEB_VERSION)" -DVERSION4="$$v4" -DEXE="$(abspath $(WIN_BIN))" \
	  -DICON="$(abspath $(WIN_DIST)/agenthub.ico)" -DREADME="$(abspath README.md)" -DWEBVIEW2="$$wv2" $$standalone \
	  -DOUTFILE="$(abspath $(WIN_SETUP))" packaging/windows/agenthub.nsi
	@echo "built $(WIN_SETUP) ($$(du -k $(WIN_SETUP) | cut -f1) KiB)"

run: build
	@if [ -n "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
	  echo "launching $(BIN) $(ARGS)"; exec ./$(BIN) $(ARGS); \
	else \
	  echo "no display: launching $(BIN) --headless $(ARGS)"; exec ./$(BIN) --headless $(ARGS); \
	fi

## ---- tests ----------------------------------------------------------------

test: test-go test-cross test-windows test-frontend test-bindings test-desktop test-package
	@echo "make test: all checks passed"

test-go: deps frontend headless
	@echo "== gofmt"
	@bad="$$(gofmt -l $(GO_FILES))"; if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	@echo "== go vet"
	go vet ./...
	go vet -tags smoketest ./app/...
	cd bench && go vet ./...
	@echo "== staticcheck (pinned in go.mod as a tool)"
	go tool staticcheck ./...
	go tool staticcheck -tags smoketest ./app/...
	@echo "== go test -race"
	AGENTHUB_HEADLESS_BIN="$(abspath $(HEADLESS_BIN))" AGENTHUB_HEADLESS_VERSION="$(VERSION)" \
	  go test -race -count=1 -timeout 15m ./...
	go test -race -count=1 -tags smoketest ./app/ ./app/smoketest/
	cd bench && go test -count=1 ./...
	@echo "== API keys in a real Secret Service (gnome-keyring in a private D-Bus session)"
	keyrings="$$(mktemp -d)"; trap 'rm -rf "$$keyrings"' EXIT; \
	XDG_DATA_HOME="$$keyrings" dbus-run-session -- bash -c 'echo -n agenthub | gnome-keyring-daemon --unlock --components=secrets >/dev/null && \
	  AGENTHUB_KEYRING_TEST=1 go test -count=1 -run SystemKeyring ./app/secrets/' 2>&1 | grep -v "fd limit"

# No Unix-only call slips into the other platforms' builds: the headless
# server for windows/amd64 and darwin/arm64, the Windows desktop app, and
# go vet of every package (tests included) as Windows sees them.
test-cross:
	@echo "== cross-compile: windows/amd64 (headless + desktop), darwin/arm64 (headless); go vet for windows"
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o /dev/null .
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -tags desktop,production -o /dev/null .
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go build -o /dev/null .
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go vet ./...

# The Windows code paths, run: every package with Windows code, its tests
# compiled for windows/amd64 and run under wine (scripts/wine-exec.sh; what
# wine cannot emulate is skipped, naming why: docs/platforms.md), the
# headless .exe under the e2e tests that need no shell, then the installer: setup.exe /S into the wine prefix, the files, the Start-menu
# entry and the uninstall entry checked, the uninstaller run
# (packaging/windows/setup_test.go). Skipped, saying so, without wine64
# and mingw (make test installs neither: make deps-windows does, as root;
# docs/platforms.md has the cost).
test-windows:
	@if ! command -v x86_64-w64-mingw32-gcc-win32 >/dev/null || ! { [ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null; }; then \
	  echo "test-windows: skipped — wine64 and gcc-mingw-w64-x86-64-win32 are not installed (make deps-windows as root)"; exit 0; fi; \
	echo "== Windows code paths under wine: $(WINE_TEST_PKGS)"; \
	mkdir -p build/wine; \
	echo '{"Replace":{"$(shell go env GOROOT)/src/internal/syscall/windows/zz_agenthub_wine.go":"$(abspath scripts/wine/deleteat_fallback.go.in)"}}' > build/wine/overlay.json; \
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -overlay build/wine/overlay.json -exec "$(abspath scripts/wine-exec.sh)" \
	  -count=1 -timeout 10m $(WINE_TEST_PKGS) || exit 1; \
	$(MAKE) --no-print-directory windows || exit 1; \
	echo "== the headless .exe under wine: the e2e tests that need no shell ($(WINE_E2E))"; \
	AGENTHUB_HEADLESS_BIN="$(abspath scripts/wine-headless.sh)" go test -count=1 -run '$(WINE_E2E)' ./e2e/ || exit 1; \
	if command -v makensis >/dev/null; then \
	  $(MAKE) --no-print-directory package-windows && \
	  echo "== setup.exe under wine: install, check, uninstall" && \
	  AGENTHUB_SETUP="$(abspath $(WIN_SETUP))" WINE_EXEC="$(abspath scripts/wine-exec.sh)" WINEPREFIX="$(abspath build/wine/prefix)" \
	    go test -tags setuptest -count=1 -v ./packaging/windows/; \
	else echo "test-windows: the installer test skipped — makensis is not installed (apt-get install nsis)"; fi

test-frontend: $(NPM_STAMP)
	@echo "== frontend typecheck"
	cd frontend && ./node_modules/.bin/tsc --noEmit -p .
	@echo "== frontend unit tests"
	cd frontend && ./node_modules/.bin/vitest run

# Regenerating the Wails bindings must not change the committed ones.
# Installs the package into this machine with apt-get, launches the desktop
# entry's Exec line with no terminal under Xvfb in a private D-Bus session,
# screenshots the window and removes the package (packaging/package_test.go).
# Part of make test where dpkg exists and we are root (CI's throw-away machine).
test-package:
	@if ! command -v dpkg >/dev/null; then echo "test-package: skipped — dpkg is not available on this machine"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then echo "test-package: skipped — installing the package needs root (run make test-package as root)"; exit 0; fi; \
	$(MAKE) --no-print-directory package && \
	echo "== package: install, launch from its desktop entry, screenshot, remove" && \
	AGENTHUB_DEB="$(abspath $(DEB))" AGENTHUB_ARTIFACTS="$(abspath $(ARTIFACTS))" \
	  xvfb-run -a -s "-screen 0 1280x900x24" dbus-run-session -- go test -tags packagetest -count=1 -v ./packaging/

test-bindings: deps frontend
	@echo "== bindings drift check"
	go tool wails generate module >/dev/null
	@git diff --exit-code --stat -- frontend/wailsjs || { echo "frontend/wailsjs is stale: run 'go tool wails generate module' and commit it" >&2; exit 1; }
	@untracked="$$(git ls-files -o --exclude-standard -- frontend/wailsjs)"; \
	if [ -n "$$untracked" ]; then echo "untracked generated bindings: $$untracked" >&2; exit 1; fi
	@echo "bindings up to date"

# Launch the smoketest desktop binary under Xvfb; it screenshots the window into
# $(ARTIFACTS)/ once the page reports ready through App.FrontendReady, then quits.
# Then the desktop tests (app/desktoptest, each under its own xvfb-run) drive
# it through a reload mid-stream and a finished conversation (docs/testing.md).
# The product desktop binary is not built here: it differs from this one only
# by the smoketest tag's files, and `make build` checks it has none of them.
test-desktop: smoketest
	@echo "== desktop smoke test (xvfb)"
	@mkdir -p $(ARTIFACTS); data="$$(mktemp -d)"; trap 'rm -rf "$$data"' EXIT; \
	timeout 180 xvfb-run -a -s "-screen 0 1280x900x24" ./$(SMOKE_BIN) --data-dir "$$data" --smoke-test $(ARTIFACTS); \
	test -s $(ARTIFACTS)/desktop-window.png; \
	echo "desktop smoke test passed: $(ARTIFACTS)/desktop-window.png"
	@echo "== desktop tests (xvfb: reload mid-stream, finished conversation, a failed turn after a restart, a pasted image, quit while a turn runs, the window's geometry restored, a start-up error shown, the menu, a second launch)"
	AGENTHUB_DESKTOP_BIN="$(abspath $(SMOKE_BIN))" AGENTHUB_ARTIFACTS="$(abspath $(ARTIFACTS))" \
	  go test -tags smoketest -count=1 -timeout 240s -v ./app/desktoptest/
	@test -s $(ARTIFACTS)/desktop-reload.png && test -s $(ARTIFACTS)/desktop-conversation.png && test -s $(ARTIFACTS)/desktop-failed-turn-after-restart.png

# The long fault run (not part of `make test`, which runs the short one
# inside test-go): kill -9 ×50, reconnect storm ×1,000, hostile tools,
# connection floods, provider faults and a 30-minute soak against the real
# headless binary; figures in artifacts/faults-report.md (docs/reliability.md).
faults: headless
	@mkdir -p $(ARTIFACTS)
	AGENTHUB_FAULTS=long AGENTHUB_FAULTS_REPORT="$(abspath $(ARTIFACTS))/faults-report.md" \
	  AGENTHUB_HEADLESS_BIN="$(abspath $(HEADLESS_BIN))" go test -count=1 -timeout 80m -v ./faults/
	@echo "fault report: $(ARTIFACTS)/faults-report.md"

# Not part of `make test` (about 3 minutes on 2 cores): end to end through
# the real headless binary beside two floors measured in the same run (a
# bare WebSocket push, an SSE → WebSocket relay); regenerates
# docs/benchmarks.md and its PNG charts (docs/bench-*.png). PEER=opencode
# also installs opencode-ai from npm (once, into a scratch folder) and
# measures it the same way: a report row, not a target.
bench: headless
	cd bench && go build -o ../build/bin/agenthub-bench .
	./build/bin/agenthub-bench -bin "$(abspath $(HEADLESS_BIN))" -out docs $(if $(PEER),-peer $(PEER))

# Not part of `make test`: only the gateway section of make bench (local
# port, through the gateway, bare Socket.io floor); writes
# docs/benchmarks-gateway.md.
bench-gateway: headless
	cd bench && go build -o ../build/bin/agenthub-bench .
	./build/bin/agenthub-bench -gateway -bin "$(abspath $(HEADLESS_BIN))" -out docs

# Not part of `make test`: Agent Hub's desktop binary against a bare Wails
# v2 window built with the same toolchain and tags in the same run (cold
# start, idle PSS of the process tree), under xvfb-run; writes
# docs/benchmarks-desktop.md.
bench-desktop: smoketest
	cd bench && go build -o ../build/bin/agenthub-bench . && \
	  CGO_ENABLED=1 go build -tags $(DESKTOP_TAGS) -o ../build/bin/barewails ./barewails
	xvfb-run -a ./build/bin/agenthub-bench -desktop -desktop-bin "$(abspath $(SMOKE_BIN))" \
	  -bare-bin "$(abspath build/bin/barewails)" -out docs

# Not part of `make test`: every test three times — the Go tests of every
# package with -race (e2e/ and the real binary's included), the smoketest
# and desktop ones, the bench module's, the keyring's and vitest — with
# every core kept busy, to flush out flaky tests (docs/testing.md).
test-stress: deps frontend headless smoketest
	AGENTHUB_HEADLESS_VERSION="$(VERSION)" ./scripts/test-stress.sh

clean:
	rm -rf build/bin $(ARTIFACTS)
	find frontend/dist -mindepth 1 ! -name .gitkeep -delete
	rm -rf frontend/dist-smoketest
