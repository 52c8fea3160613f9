//go:build !unix

package tool

// openNonblock is 0 where FIFOs cannot block an open.
const openNonblock = 0
