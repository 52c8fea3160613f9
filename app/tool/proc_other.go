//go:build !unix && !windows

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

func startGroup(cmd *exec.Cmd, marker string) (*procGroup, error) {
	return nil, errors.New("the bash tool needs a Unix system (process groups)")
}

func (pg *procGroup) shutdown(grace time.Duration) {}

func (pg *procGroup) exitDescription() (int, string) { return -1, "unsupported" }
