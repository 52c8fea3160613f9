//go:build unix && !linux

package tool

// enableSubreaper is a no-op where there is no child subreaper; orphaned
// grandchildren are then reaped by init after the group is killed.
func enableSubreaper() bool { return false }
