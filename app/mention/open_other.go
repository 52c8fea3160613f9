//go:build !unix

package mention

// openNoWait: no such flags here; readIgnore still refuses non-regular files.
const openNoWait = 0
