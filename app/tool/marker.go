package tool

import (
	"crypto/rand"
	"encoding/hex"
)

// MarkerEnv is the environment variable that marks every process a bash
// call starts (value: a random per-call token). On Linux a scan of /proc
// finds the processes that left the group by it; on Windows the job
// object holds them all and the marker is only informative.
const MarkerEnv = "AGENTHUB_TOOL_CALL"

// newMarker returns a fresh per-call marker value.
func newMarker() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
