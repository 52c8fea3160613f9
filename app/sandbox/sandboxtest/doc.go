// Package sandboxtest holds what the sandbox's tests in several packages
// share: a pseudo-terminal to aim TIOCSTI at (Linux).
package sandboxtest
