//go:build unix && !linux

package tool

// Without /proc there is no way to find processes that left the group:
// only the process group is killed.

func scanMarked(needle []byte, since uint64) map[int]uint64 { return nil }

// MarkedProcesses finds nothing without /proc.
func MarkedProcesses(name, value string) []int { return nil }

func startTicks(pid int) uint64 { return 0 }

func escapeeState(pid int, start uint64) (alive, zombie, ours bool) { return false, false, false }

func reapPid(pid int) {}

func sweepOrphans() {}
