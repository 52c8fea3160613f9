package store

import "fmt"

// OpKind says which state mutation an Op is.
type OpKind uint8

// The state mutations. Every backend of the log applies them with the same
// meaning (see the constructors); ipc's conformance suite pins it.
const (
	OpPutSession    OpKind = iota + 1 // insert or replace Session
	OpDeleteSession                   // remove SessionID with its messages and turns
	OpPutMessage                      // append or replace Message in its session
	OpPutTurn                         // insert or replace Turn in its session
)

// Op is a state mutation committed in the same transaction as a batch of
// events (see DB.Commit), so a reader that sees an event also sees every
// state change made with it. It is plain data, so any backend can apply
// it; build it with PutSession, DeleteSession, PutMessage or PutTurn. Kind
// selects the one meaningful field.
type Op struct {
	Kind      OpKind
	Session   Session // OpPutSession
	SessionID string  // OpDeleteSession
	Message   Message // OpPutMessage
	Turn      Turn    // OpPutTurn
}

// PutSession inserts or replaces a session record. The id must be non-empty.
func PutSession(s Session) Op { return Op{Kind: OpPutSession, Session: s} }

// DeleteSession removes a session with its messages and turns. Its events
// stay in the log until retention prunes them. Deleting an absent session
// is not an error.
func DeleteSession(id string) Op { return Op{Kind: OpDeleteSession, SessionID: id} }

// PutMessage stores a message of an existing session (ErrNotFound
// otherwise). A new id is appended at the session's next offset (m.Offset is
// ignored; offsets start at 0 and restart after DeleteSession); an existing
// id is replaced in place and keeps its offset, so offsets never shift.
func PutMessage(m Message) Op { return Op{Kind: OpPutMessage, Message: m} }

// PutTurn inserts or replaces a turn of an existing session (ErrNotFound
// otherwise).
func PutTurn(t Turn) Op { return Op{Kind: OpPutTurn, Turn: t} }

// OpSession reports the session an op writes, if op is a PutSession. The
// log writer uses it to keep its session-tree cache current.
func OpSession(op Op) (Session, bool) {
	if op.Kind == OpPutSession {
		return op.Session, true
	}
	return Session{}, false
}

// Check reports what makes op invalid on its own (an unknown kind, a
// missing id); it does not look at stored state. Every backend calls it
// before applying an op.
func (op Op) Check() error {
	switch op.Kind {
	case OpPutSession:
		if op.Session.ID == "" {
			return fmt.Errorf("put session: session id is empty")
		}
	case OpDeleteSession:
		if op.SessionID == "" {
			return fmt.Errorf("delete session: session id is empty")
		}
	case OpPutMessage:
		if op.Message.ID == "" || op.Message.SessionID == "" {
			return fmt.Errorf("put message %q: message id and session id are required", op.Message.ID)
		}
	case OpPutTurn:
		if op.Turn.ID == "" || op.Turn.SessionID == "" {
			return fmt.Errorf("put turn %q: turn id and session id are required", op.Turn.ID)
		}
	default:
		return fmt.Errorf("op of unknown kind %d", op.Kind)
	}
	return nil
}

// String names the op for error messages.
func (op Op) String() string {
	switch op.Kind {
	case OpPutSession:
		return "put session " + op.Session.ID
	case OpDeleteSession:
		return "delete session " + op.SessionID
	case OpPutMessage:
		return "put message " + op.Message.ID
	case OpPutTurn:
		return "put turn " + op.Turn.ID
	}
	return fmt.Sprintf("op of kind %d", op.Kind)
}
