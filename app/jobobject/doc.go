// Package jobobject holds a started process and everything it starts in a
// Windows Job Object, so that the whole tree can be ended at once and ends
// with the app: the Windows counterpart of the process group, the child
// subreaper and the parent-death signal the Unix code uses (app/tool,
// app/mcp).
//
// A job is created with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE and without
// JOB_OBJECT_LIMIT_BREAKAWAY_OK: a process in it cannot leave it
// (CREATE_BREAKAWAY_FROM_JOB fails), every process it starts is in it too,
// and when the last handle to the job closes — Close, or the app's exit
// or crash — the kernel terminates every process left in it. The process
// is started suspended and runs only once it is in the job, so not even
// its first child can be started outside.
//
// The package is empty on other systems.
package jobobject
