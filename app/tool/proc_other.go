//go:build !unix

package tool

import (
	"errors"
	"os/exec"
	"time"
)

// procGroup is unsupported off Unix: bash needs process groups.
type procGroup struct {
	shellDone chan struct{}
	groupDone chan struct{}
}

// MarkerEnv is the environment variable that marks a bash call's processes.
const MarkerEnv = "AGENTHUB_TOOL_CALL"

func newMarker() string { return "" }

func startGroup(cmd *exec.Cmd, marker string) (*procGroup, error) {
	return nil, errors.New("the bash tool needs a Unix system (process groups)")
}

func (pg *procGroup) shutdown(grace time.Duration) {}

func (pg *procGroup) exitDescription() (int, string) { return -1, "unsupported" }
