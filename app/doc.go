// Package app is Agent Hub's composition root: the configuration parsed
// from the command line (Config, ParseFlags), the data dir, the running
// Instance (store → bus → hub → dashboard, Open/Close), the two ways to run
// it (RunHeadless, RunDesktop) and the Wails-bound App facade the page
// calls. What it wires lives in its sub-packages: the domains (hub, agent,
// llm, tool, permission, sandbox, …), the window's shell (app/window), the
// settings file and its live service (app/settings) and, in builds with
// the smoketest tag only, the desktop test harness (app/smoketest), which
// registers itself as the window's Driver.
package app
