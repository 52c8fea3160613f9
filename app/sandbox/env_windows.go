package sandbox

import "strings"

// platformEnvNames are what Windows programs need to run at all (the
// system and user folders, the executable extensions, the processor),
// none of which holds a credential. "Path" is matched by baseEnvNames'
// PATH: Windows names are case-insensitive.
var platformEnvNames = []string{
	"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT",
	"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "USERNAME", "USERDOMAIN", "COMPUTERNAME",
	"APPDATA", "LOCALAPPDATA", "ProgramData", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432",
	"CommonProgramFiles", "CommonProgramFiles(x86)", "CommonProgramW6432",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "PROCESSOR_IDENTIFIER", "OS",
}

// envNameIs compares environment names as Windows does: ignoring case.
func envNameIs(name, want string) bool { return strings.EqualFold(name, want) }
