#!/bin/sh
# The Debian version of this checkout (it must start with a digit): the
# newest tag without its "v", else 0.0.0~gitDATE.COMMIT.
v="$(git describe --tags --abbrev=0 2>/dev/null | sed 's/^v//')"
if [ -n "$v" ]; then
  echo "$v"
else
  echo "0.0.0~git$(git log -1 --format=%cd.%h --date=format:%Y%m%d 2>/dev/null || echo dev)"
fi
