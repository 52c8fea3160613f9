package main

// wireFrame is the part of the dashboard stream's frames the clients read
// (the floors write the same shape).
type wireFrame struct {
	Type  string     `json:"type"`
	Code  string     `json:"code,omitempty"`
	Event *wireEvent `json:"event,omitempty"`
}

type wireEvent struct {
	ID        string      `json:"id"`
	SessionID string      `json:"session_id"`
	Type      string      `json:"type"`
	Payload   wirePayload `json:"payload"`
}

type wirePayload struct {
	MessageID string `json:"message_id"`
	Text      string `json:"text"`
}
