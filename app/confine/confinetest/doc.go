// Package confinetest is the attacker of the confinement tests: a loop
// that swaps a workspace directory with a symlink to a directory outside
// it (renameat2 RENAME_EXCHANGE, as a process left behind by bash can),
// so a path checked once and then opened by name lands outside (Linux:
// renameat2); and a probe that catches a FIFO opened for reading (Unix).
package confinetest
