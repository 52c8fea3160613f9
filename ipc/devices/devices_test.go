package devices

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestHubIDIsStable(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir).HubID()
	if err != nil || len(a) != 36 {
		t.Fatalf("hub id %q %v", a, err)
	}
	b, _ := Open(dir).HubID()
	if a != b {
		t.Fatalf("hub id changed: %s → %s", a, b)
	}
	fi, err := os.Stat(Open(dir).Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("trust file mode: %v %v", fi, err)
	}
}

func TestPairConfirmAuthenticate(t *testing.T) {
	s := Open(t.TempDir())
	tok, exp, err := s.Pair(ReadOnly)
	if err != nil || !strings.HasPrefix(tok, "ahp_") || time.Until(exp) > PairingTTL {
		t.Fatalf("pair: %q %v %v", tok, exp, err)
	}
	if b, _ := os.ReadFile(s.Path()); strings.Contains(string(b), tok) {
		t.Fatal("the token itself is stored")
	}
	p, err := s.Redeemable(tok)
	if err != nil || p.Rights != ReadOnly {
		t.Fatalf("redeemable: %+v %v", p, err)
	}
	if _, err := s.Authenticate("phone", tok); !errors.Is(err, ErrUnknownDevice) {
		t.Fatalf("before confirm: %v", err)
	}
	d, err := s.Confirm("phone", tok, ReadOnly, map[string]string{"userAgent": "x"})
	if err != nil || d.Rights != ReadOnly {
		t.Fatalf("confirm: %+v %v", d, err)
	}
	// The token is spent as a pairing token and is now phone's credential.
	if _, err := s.Redeemable(tok); !errors.Is(err, ErrBadToken) {
		t.Fatalf("spent token still redeemable: %v", err)
	}
	if _, err := s.Confirm("laptop", tok, Full, nil); !errors.Is(err, ErrBadToken) {
		t.Fatalf("second confirm with a spent token: %v", err)
	}
	if d, err := s.Authenticate("phone", tok); err != nil || d.ID != "phone" {
		t.Fatalf("authenticate: %+v %v", d, err)
	}
	if _, err := s.Authenticate("phone", ""); !errors.Is(err, ErrBadToken) {
		t.Fatalf("no token: %v", err)
	}
	if _, err := s.Authenticate("phone", "ahp_other"); !errors.Is(err, ErrBadToken) {
		t.Fatalf("wrong token: %v", err)
	}
	if err := s.SetRights("phone", Full); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := s.Lookup("phone"); d.Rights != Full {
		t.Fatalf("rights %s", d.Rights)
	}
	if ok, err := s.Revoke("phone"); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if _, err := s.Authenticate("phone", tok); !errors.Is(err, ErrUnknownDevice) {
		t.Fatalf("after revoke: %v", err)
	}
}

func TestPairingExpires(t *testing.T) {
	s := Open(t.TempDir())
	now := time.Now()
	s.now = func() time.Time { return now }
	tok, _, _ := s.Pair(Full)
	now = now.Add(PairingTTL + time.Second)
	if _, err := s.Redeemable(tok); !errors.Is(err, ErrBadToken) {
		t.Fatalf("expired token: %v", err)
	}
	if _, err := s.Confirm("x", tok, Full, nil); !errors.Is(err, ErrBadToken) {
		t.Fatalf("confirm with expired token: %v", err)
	}
}

func TestBrokenFileIsAnErrorNotAReset(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	if err := os.WriteFile(s.Path(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.HubID(); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("hub id on a broken file: %v", err)
	}
	if b, _ := os.ReadFile(s.Path()); string(b) != "{" {
		t.Fatalf("broken file overwritten: %q", b)
	}
}
