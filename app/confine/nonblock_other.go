//go:build !unix

package confine

// openNonblock and openDirOnly are 0 where FIFOs cannot block an open.
const (
	openNonblock = 0
	openDirOnly  = 0
)
