//go:build !smoketest && !bindings

package app

// pageHooks is empty in a product build: the App binds no test method
// (pagereport.go, built with the smoketest or bindings tag, has them).
type pageHooks struct{}
