package secrets

import (
	"strings"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
)

// A keyring that does not answer (a password prompt nobody sees) is not
// waited for: the file vault is used, saying why.
func TestOpenDoesNotWaitForAPromptingKeyring(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	v := openWith(t.TempDir(), func() error { <-release; return nil }, 20*time.Millisecond)
	if _, ok := v.(*fileVault); !ok || !strings.Contains(v.Where(), "did not answer within 20ms") {
		t.Fatalf("Open with a silent keyring = %T %q", v, v.Where())
	}
	if _, ok := openWith(t.TempDir(), func() error { return keyring.ErrNotFound }, time.Second).(keyringVault); !ok {
		t.Fatal("a keyring that answers is not used")
	}
}
