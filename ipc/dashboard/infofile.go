package dashboard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// InfoFileName is the file in the data dir that tells local tools where the
// running dashboard is.
const InfoFileName = "dashboard.json"

// Info is the content of dashboard.json (DESIGN.md §3): the first-load URL
// exactly as printed on start-up, the port and the token.
type Info struct {
	URL   string `json:"url"`
	Port  int    `json:"port"`
	Token string `json:"token"`
}

// Info returns the server's dashboard.json content.
func (s *Server) Info() Info {
	return Info{URL: s.URL(), Port: s.port, Token: s.token}
}

// WriteInfoFile writes s.Info() to DIR/dashboard.json with mode 0600
// (replacing any stale file, whose mode is corrected too) and returns its path.
func (s *Server) WriteInfoFile(dir string) (string, error) {
	p := filepath.Join(dir, InfoFileName)
	b, err := json.MarshalIndent(s.Info(), "", "  ")
	if err != nil {
		return "", fmt.Errorf("dashboard: encode %s: %w", p, err)
	}
	tmp, err := os.CreateTemp(dir, "."+InfoFileName+".*")
	if err != nil {
		return "", fmt.Errorf("dashboard: write %s: %w", p, err)
	}
	name := tmp.Name()
	err = writeClose(tmp, append(b, '\n'))
	if err == nil {
		err = os.Chmod(name, 0o600)
	}
	if err == nil {
		err = os.Rename(name, p)
	}
	if err != nil {
		_ = os.Remove(name)
		return "", fmt.Errorf("dashboard: write %s: %w", p, err)
	}
	return p, nil
}

// RemoveInfoFile deletes DIR/dashboard.json if it still describes this
// server (another instance may have replaced it).
func (s *Server) RemoveInfoFile(dir string) error {
	p := filepath.Join(dir, InfoFileName)
	b, err := os.ReadFile(p)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("dashboard: read %s: %w", p, err)
	}
	var got Info
	if json.Unmarshal(b, &got) != nil || got.Token != s.token {
		return nil
	}
	if err := os.Remove(p); err != nil {
		return fmt.Errorf("dashboard: remove %s: %w", p, err)
	}
	return nil
}

// writeClose writes b to f and closes it, returning the first error.
func writeClose(f *os.File, b []byte) error {
	_, err := f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
