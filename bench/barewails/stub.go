//go:build !desktop

package main

import (
	"fmt"
	"os"
)

// Without the Wails "desktop" tag there is no window to open.
func main() {
	fmt.Fprintln(os.Stderr, "barewails: build with -tags desktop,production,webkit2_41")
	os.Exit(2)
}
