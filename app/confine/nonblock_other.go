//go:build !unix

package confine

// openNonblock is 0 where FIFOs cannot block an open.
const openNonblock = 0
