package tool

import (
	"fmt"
	"os"
	"os/exec"

	sbx "agenthub/app/sandbox"
)

// command builds the process for one bash call in dir: `Shell -c line`,
// through the sandbox helper when Options.Sandbox is set — writes confined
// to the workspace, a temp dir of its own (TMPDIR, removed by cleanup) and
// the cache dirs; reads and TCP as e asks. cmd.Env holds the inherited
// environment.
func (t *bashTool) command(dir, line string, e Env) (cmd *exec.Cmd, cleanup func(), err error) {
	argv := []string{t.opts.Shell, "-c", line}
	env := inheritedEnv()
	cleanup = func() {}
	if sb := t.opts.Sandbox; sb != nil {
		tmp, err := os.MkdirTemp("", "agenthub-bash-")
		if err != nil {
			return nil, nil, fmt.Errorf("sandbox temp dir: %w", err)
		}
		cleanup = func() { _ = os.RemoveAll(tmp) }
		p := sbx.Policy{WriteDirs: append([]string{dir, tmp}, sb.CacheDirs...), NoNetwork: e.NoNetwork}
		if e.ReadWorkspaceOnly {
			p.ReadDirs = append([]string{dir, tmp}, sb.CacheDirs...)
		}
		if argv, err = sbx.Command(sb.Helper, p, argv); err != nil {
			cleanup()
			return nil, nil, err
		}
		env = append(env, "TMPDIR="+tmp)
	}
	cmd = exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	return cmd, cleanup, nil
}
