package ipc

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// FuzzDecodeClientFrame: any bytes decode to a frame or a *FrameError with
// a protocol code; subscribe filters then parse or fail with *FilterError.
func FuzzDecodeClientFrame(f *testing.F) {
	for _, s := range []string{
		`{"type":"subscribe","filter":"preset:chat","since":null,"snapshot":true}`,
		`{"type":"subscribe","filter":{"event_types":["text.delta","made.up.thing"]},"since":"01HZ"}`,
		`{"type":"cancel","turn_id":"t1","reason":"user_cancel"}`,
		`{"type":"ping","nonce":"n1"}`, `{"type":"request","requestId":"r","method":"m","params":{}}`,
		`{"type":"bogus"}`, `not json`, `{"type":7}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	codes := []string{CodeInvalidFrame, CodeUnknownFrameType, CodeFrameTooLarge}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := DecodeClientFrame(data)
		if err != nil {
			var fe *FrameError
			if !errors.As(err, &fe) || !slices.Contains(codes, fe.Code) || !json.Valid(fe.Frame()) {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		if fr.Type == FrameSubscribe {
			if fr.Subscribe == nil {
				t.Fatal("subscribe frame without body")
			}
			checkFilter(t, fr.Subscribe.Filter)
		}
	})
}

// FuzzParseFilter: a filter either fails with a *FilterError or resolves to
// known types and actors, and its echoed form parses to itself.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{`"preset:chat"`, `"preset:full"`, `{"event_types":["text.delta"],"actors":["agent"],"include_worker_sessions":true}`,
		`{"event_types":["made.up.thing"]}`, `{"actors":null}`, `{"event_types":[1]}`, `""`, `{}`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFilter(t, data) })
}

func checkFilter(t *testing.T, raw json.RawMessage) {
	flt, err := ParseFilter(raw)
	if err != nil {
		var fe *FilterError
		if !errors.As(err, &fe) {
			t.Fatalf("filter error %T %v", err, err)
		}
		return
	}
	for _, ty := range flt.EventTypes {
		if _, ok := TierOf(ty); !ok {
			t.Fatalf("unknown type %q accepted", ty)
		}
	}
	for _, a := range flt.Actors {
		if !slices.Contains(Actors, a) {
			t.Fatalf("unknown actor %q accepted", a)
		}
	}
	echoed, _ := json.Marshal(flt)
	again, err := ParseFilter(echoed)
	if err != nil {
		t.Fatalf("echoed filter %s rejected: %v", echoed, err)
	}
	if e2, _ := json.Marshal(again); string(e2) != string(echoed) {
		t.Fatalf("echo not stable: %s vs %s", echoed, e2)
	}
}
