#!/usr/bin/env bash
# Runs a Windows program (a Go test binary: go test -exec scripts/wine-exec.sh)
# under Debian's wine64, in the project's own wine prefix (build/wine/prefix),
# made on first use with the bcryptprimitives.dll stand-in Go's runtime needs
# (scripts/wine/bcryptprimitives.c; docs/platforms.md). Needs wine64 and
# gcc-mingw-w64-x86-64-win32 (make deps-windows installs them as root).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wine="${WINE:-/usr/lib/wine/wine64}"
[ -x "$wine" ] || wine="$(command -v wine64 || command -v wine || true)"
if [ -z "$wine" ]; then echo "wine-exec: wine64 is not installed (apt-get install wine64)" >&2; exit 127; fi
export WINEPREFIX="${WINEPREFIX:-$root/build/wine/prefix}"
export WINEDEBUG="${WINEDEBUG:--all}"
dll="$root/build/wine/bcryptprimitives.dll"
sys32="$WINEPREFIX/drive_c/windows/system32"
# The prefix is ready once it exists, reports Windows 10 (Go 1.21 and later
# need it; Debian's wine 8.0 makes prefixes that say Windows 7) and holds
# the DLL stand-in.
ready="$WINEPREFIX/.agenthub-ready"
if [ ! -e "$ready" ] || [ "$root/scripts/wine/bcryptprimitives.c" -nt "$ready" ]; then
  (
    # One run makes the prefix; concurrent ones wait for it.
    mkdir -p "$root/build/wine"
    exec 9>"$root/build/wine/.lock"
    flock 9
    if [ ! -e "$ready" ] || [ "$root/scripts/wine/bcryptprimitives.c" -nt "$ready" ]; then
      if [ ! -s "$dll" ] || [ "$root/scripts/wine/bcryptprimitives.c" -nt "$dll" ]; then
        x86_64-w64-mingw32-gcc-win32 -shared -O2 -s -o "$dll" \
          "$root/scripts/wine/bcryptprimitives.c" "$root/scripts/wine/bcryptprimitives.def" -ladvapi32
      fi
      "$wine" wineboot --init >/dev/null 2>&1 || true
      "$wine" winecfg -v win10 >/dev/null 2>&1
      cp "$dll" "$sys32/bcryptprimitives.dll"
      touch "$ready"
    fi
  )
fi
exec "$wine" "$@"
