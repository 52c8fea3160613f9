// Package sandboxtest holds what the sandbox's tests in several packages
// share: a pseudo-terminal to aim TIOCSTI at, and the check that no
// process a command started outlived it (Linux).
package sandboxtest
