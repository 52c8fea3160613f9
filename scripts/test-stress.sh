#!/usr/bin/env bash
# make test-stress: every test of the project three times while one busy
# loop per core keeps the machine loaded (the CI machine has two cores;
# flaky tests show up under this pressure): the Go tests of every package
# with -race -count=3 — e2e/ (the browser against the headless binary) and
# the real binary's main_test.go included — the smoketest-tagged ones, the
# desktop tests under Xvfb (app/desktoptest, against the smoketest binary),
# the bench module's, and the vitest suite three times. Not part of
# `make test`. `make test-stress` builds the binaries first.
set -euo pipefail
cd "$(dirname "$0")/.."
artifacts=${ARTIFACTS:-artifacts}
mkdir -p "$artifacts"
headless="$PWD/build/bin/agenthub-headless"
smoke="$PWD/build/bin/agenthub-smoketest"
for b in "$headless" "$smoke"; do
  [ -x "$b" ] || { echo "stress: $b is missing (make headless smoketest)" >&2; exit 2; }
done

cores=$(nproc)
hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_hogs EXIT
# Bounded: each hog dies on its own after two hours even if this script is
# killed (the whole run takes about an hour on two cores).
for _ in $(seq "$cores"); do
  timeout 7200 bash -c 'while :; do :; done' &
  hogs+=($!)
done
echo "stress: $cores busy loop(s) running"

start=$(date +%s)
status=0
# run NAME LOG CMD...: runs CMD with its output in LOG, prints the result
# lines and marks the run failed when CMD fails.
run() {
  local name=$1 log=$2
  shift 2
  echo "== $name (log: $log)"
  if ! "$@" >"$log" 2>&1; then
    status=1
    echo "$name FAILED"
  fi
  grep -E '^(ok|FAIL|---|panic)' "$log" || true
}

export AGENTHUB_HEADLESS_BIN="$headless" AGENTHUB_DESKTOP_BIN="$smoke" AGENTHUB_ARTIFACTS="$PWD/$artifacts/stress"
mkdir -p "$AGENTHUB_ARTIFACTS"
run "go test -race -count=3, every package" "$artifacts/stress-go.log" \
  go test -race -count=3 -timeout 60m ./...
run "go test -race -count=3 -tags smoketest (the harness)" "$artifacts/stress-smoketest.log" \
  go test -race -count=3 -timeout 10m -tags smoketest ./app/ ./app/smoketest/
run "desktop tests x3 (xvfb)" "$artifacts/stress-desktop.log" \
  go test -count=3 -timeout 30m -tags smoketest ./app/desktoptest/
run "bench module x3" "$artifacts/stress-bench.log" \
  bash -c 'cd bench && go test -count=3 ./...'
run "API keys in a real Secret Service x3" "$artifacts/stress-keyring.log" \
  bash -c 'keyrings="$(mktemp -d)"; trap '"'"'rm -rf "$keyrings"'"'"' EXIT; XDG_DATA_HOME="$keyrings" dbus-run-session -- bash -c '"'"'echo -n agenthub | gnome-keyring-daemon --unlock --components=secrets >/dev/null && AGENTHUB_KEYRING_TEST=1 go test -count=3 -run SystemKeyring ./app/secrets/'"'"''

echo "== vitest x3"
for i in 1 2 3; do
  if ! (cd frontend && ./node_modules/.bin/vitest run --reporter=dot >/dev/null 2>"../$artifacts/stress-vitest-$i.log"); then
    echo "vitest run $i FAILED (see $artifacts/stress-vitest-$i.log)"
    status=1
  else
    echo "vitest run $i ok"
  fi
done

echo "stress: $(( $(date +%s) - start )) s on $cores core(s), status $status"
exit $status
