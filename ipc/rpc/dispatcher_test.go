package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"agenthub/ipc"
)

type frame struct {
	Type      string          `json:"type"`
	RequestID string          `json:"requestId"`
	OK        *bool           `json:"ok"`
	Payload   json.RawMessage `json:"payload"`
	Error     *Error          `json:"error"`
}

func decodeFrame(t *testing.T, b []byte) frame {
	t.Helper()
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("response %s is not JSON: %v", b, err)
	}
	if f.Type != TypeResponse || f.OK == nil {
		t.Fatalf("not a response frame: %s", b)
	}
	return f
}

func testDispatcher() *Dispatcher {
	d := NewDispatcher(nil)
	d.Register("echo", func(_ context.Context, p json.RawMessage) (any, error) {
		var v struct {
			Text string `json:"text"`
		}
		if err := DecodeParams(p, &v); err != nil {
			return nil, err
		}
		return map[string]string{"text": v.Text}, nil
	})
	d.Register("nothing", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	d.Register("missing", func(context.Context, json.RawMessage) (any, error) {
		return nil, fmt.Errorf("lookup s1: %w", ipc.ErrSessionNotFound)
	})
	d.Register("bad", func(context.Context, json.RawMessage) (any, error) {
		return nil, fmt.Errorf("title too long: %w", ipc.ErrInvalidInput)
	})
	d.Register("full", func(context.Context, json.RawMessage) (any, error) {
		return nil, fmt.Errorf("s1: %w", ipc.ErrQueueFull)
	})
	d.Register("boom", func(context.Context, json.RawMessage) (any, error) { panic("kaboom") })
	d.Register("unencodable", func(context.Context, json.RawMessage) (any, error) { return func() {}, nil })
	return d
}

func TestDispatchSuccess(t *testing.T) {
	d := testDispatcher()
	f := decodeFrame(t, d.DispatchFrame(context.Background(),
		[]byte(`{"type":"request","requestId":"r1","method":"echo","params":{"text":"hi"}}`)))
	if !*f.OK || f.RequestID != "r1" || string(f.Payload) != `{"text":"hi"}` || f.Error != nil {
		t.Fatalf("got %+v payload %s", f, f.Payload)
	}
	// A nil payload is still present as null, and absent params are fine.
	raw := d.DispatchFrame(context.Background(), []byte(`{"type":"request","requestId":"r2","method":"nothing"}`))
	if string(raw) != `{"type":"response","requestId":"r2","ok":true,"payload":null}` {
		t.Fatalf("got %s", raw)
	}
}

func TestDispatchErrorCodes(t *testing.T) {
	d := testDispatcher()
	cases := []struct {
		name, frame, reqID, code, msg string
	}{
		{"unknown method", `{"type":"request","requestId":"a","method":"nope"}`, "a", CodeMethodNotFound, `"nope"`},
		{"params wrong type", `{"type":"request","requestId":"b","method":"echo","params":{"text":5}}`, "b", CodeInvalidParams, "text"},
		{"params not an object", `{"type":"request","requestId":"c","method":"echo","params":[1]}`, "c", CodeInvalidParams, "object"},
		{"session sentinel", `{"type":"request","requestId":"d","method":"missing"}`, "d", CodeAgentNotFound, "session not found"},
		{"invalid input sentinel", `{"type":"request","requestId":"e","method":"bad"}`, "e", CodeInvalidParams, "title too long"},
		{"other error", `{"type":"request","requestId":"f","method":"full"}`, "f", CodeRPCError, "queue full"},
		{"panic", `{"type":"request","requestId":"g","method":"boom"}`, "g", CodeRPCError, "internal error"},
		{"unencodable payload", `{"type":"request","requestId":"h","method":"unencodable"}`, "h", CodeRPCError, "not encodable"},
		{"not JSON", `{"type":"request","requestId":"i",`, "", CodeInvalidParams, "malformed"},
		{"wrong type", `{"type":"response","requestId":"j","method":"echo"}`, "j", CodeInvalidParams, "type"},
		{"no requestId", `{"type":"request","method":"echo"}`, "", CodeInvalidParams, "requestId"},
		{"no method", `{"type":"request","requestId":"k"}`, "k", CodeInvalidParams, "method"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := decodeFrame(t, d.DispatchFrame(context.Background(), []byte(c.frame)))
			if *f.OK || f.Error == nil || f.Payload != nil {
				t.Fatalf("want an error frame, got %+v", f)
			}
			if f.RequestID != c.reqID || f.Error.Code != c.code || !strings.Contains(f.Error.Message, c.msg) {
				t.Fatalf("got requestId %q code %q message %q; want %q %q ~%q", f.RequestID, f.Error.Code, f.Error.Message, c.reqID, c.code, c.msg)
			}
		})
	}
}

func TestDispatchOversizeFrame(t *testing.T) {
	d := testDispatcher()
	big := `{"type":"request","requestId":"z","method":"echo","params":{"text":"` + strings.Repeat("x", MaxFrameBytes) + `"}}`
	f := decodeFrame(t, d.DispatchFrame(context.Background(), []byte(big)))
	if *f.OK || f.Error.Code != CodeInvalidParams {
		t.Fatalf("got %+v", f)
	}
}

func TestRegisterRejectsDuplicatesAndEmpty(t *testing.T) {
	d := testDispatcher()
	for name, fn := range map[string]func(){
		"duplicate": func() { d.Register("echo", func(context.Context, json.RawMessage) (any, error) { return nil, nil }) },
		"empty":     func() { d.Register("", func(context.Context, json.RawMessage) (any, error) { return nil, nil }) },
		"nil":       func() { d.Register("x", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			fn()
		}()
	}
	if got := strings.Join(d.Methods(), ","); got != "bad,boom,echo,full,missing,nothing,unencodable" {
		t.Fatalf("Methods() = %s", got)
	}
}

func TestAsErrorKeepsProtocolErrors(t *testing.T) {
	pe := Errorf(CodeAgentNotFound, "x")
	if got := AsError(fmt.Errorf("wrapped: %w", pe)); got != pe {
		t.Fatalf("got %v", got)
	}
	if AsError(nil) != nil {
		t.Fatal("nil error mapped to non-nil")
	}
	if got := AsError(fmt.Errorf("t: %w", ipc.ErrTurnNotFound)); got.Code != CodeInvalidParams {
		t.Fatalf("turn not found → %s", got.Code)
	}
	if got := AsError(errors.New("disk on fire")); got.Code != CodeRPCError {
		t.Fatalf("plain error → %s", got.Code)
	}
}

func TestDispatchConcurrent(t *testing.T) {
	d := testDispatcher()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				id := fmt.Sprintf("r%d-%d", i, j)
				f := decodeFrame(t, d.DispatchFrame(context.Background(),
					[]byte(`{"type":"request","requestId":"`+id+`","method":"echo","params":{"text":"`+id+`"}}`)))
				if f.RequestID != id || string(f.Payload) != `{"text":"`+id+`"}` {
					t.Errorf("mixed up: %+v", f)
					return
				}
			}
		}()
	}
	wg.Wait()
}
