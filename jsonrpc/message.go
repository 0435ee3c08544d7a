// Package jsonrpc reads and writes messages of the LSP base protocol
// (LSP 3.17 specification, "Base Protocol"): a header part with a
// Content-Length, then a JSON-RPC 2.0 body.
//
// Bodies are kept as the exact bytes that arrived (Message.Raw), so a proxy can
// forward what it does not understand unchanged; only the routing fields (id,
// method) are decoded. Conn adds request/response correlation for the side that
// originates requests (the engine's JDT LS client, test editors).
package jsonrpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// MaxBodyBytes bounds one message body (64 MiB). A larger Content-Length is a
// protocol error: the reader refuses it instead of allocating it.
const MaxBodyBytes = 64 << 20

// Error is a JSON-RPC 2.0 error object (LSP 3.17 "ResponseMessage").
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Error codes from JSON-RPC 2.0 and LSP 3.17 ("ErrorCodes", "LSPErrorCodes").
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeServerNotReady   = -32002 // ServerNotInitialized
	CodeRequestFailed    = -32803
	CodeServerCancelled  = -32802
	CodeContentModified  = -32801
	CodeRequestCancelled = -32800
)

// Message is one JSON-RPC message. Raw holds the body exactly as read (nil for
// messages built locally until they are encoded); the other fields are the
// decoded envelope. ID is the raw JSON id (number or string) or nil.
type Message struct {
	Raw    []byte          `json:"-"`
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// IsRequest reports whether m is a request (method and id).
func (m *Message) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }

// IsNotification reports whether m is a notification (method, no id).
func (m *Message) IsNotification() bool { return m.Method != "" && !m.IsRequest() }

// IsResponse reports whether m is a response (no method).
func (m *Message) IsResponse() bool { return m.Method == "" }

// IDKey returns a canonical string for m.ID, for use as a map key: numbers
// and strings with the same spelling stay distinct ("1" vs "\"1\""), and
// equal ids spelled differently on the wire get the same key (Neovim's JSON
// encoder writes "repilot/4" as "repilot\/4"; "\u0041" is "A"; 1.0 is 1).
func (m *Message) IDKey() string { return CanonicalID(m.ID) }

// CanonicalID returns the canonical JSON spelling of a raw id: strings are
// decoded and re-encoded, numbers printed in their shortest form. Anything
// that does not decode is returned trimmed, as it was.
func CanonicalID(id json.RawMessage) string {
	raw := bytes.TrimSpace(id)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			b, _ := json.Marshal(s)
			return string(b)
		}
		return string(raw)
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if i, err := n.Int64(); err == nil {
			return strconv.FormatInt(i, 10)
		}
		if f, err := n.Float64(); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return string(raw)
}

// Decode parses body into a Message, keeping body as Raw. A body that is not a
// JSON object is a parse error (*Error with CodeParseError).
func Decode(body []byte) (*Message, error) {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *Error          `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, &Error{Code: CodeParseError, Message: "invalid JSON-RPC body: " + err.Error()}
	}
	return &Message{Raw: body, ID: env.ID, Method: env.Method, Params: env.Params, Result: env.Result, Error: env.Error}, nil
}

// Encode returns the JSON body of m: Raw when set, else the envelope with
// "jsonrpc":"2.0". A response with neither result nor error gets "result":null.
func Encode(m *Message) ([]byte, error) {
	if m.Raw != nil {
		return m.Raw, nil
	}
	type wire struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Method  string          `json:"method,omitempty"`
		Params  json.RawMessage `json:"params,omitempty"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   *Error          `json:"error,omitempty"`
	}
	w := wire{JSONRPC: "2.0", ID: m.ID, Method: m.Method, Params: m.Params, Result: m.Result, Error: m.Error}
	if m.Method == "" && m.Error == nil && len(m.Result) == 0 {
		w.Result = json.RawMessage("null")
	}
	return json.Marshal(w)
}

// Reader reads framed messages from a byte stream. It is not safe for
// concurrent use.
type Reader struct{ br *bufio.Reader }

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader { return &Reader{br: bufio.NewReaderSize(r, 64<<10)} }

// ReadBody reads the next message's body bytes. It returns io.EOF at a clean end
// of stream, and an error naming the problem for a malformed header (missing or
// bad Content-Length, body over MaxBodyBytes) or a truncated body.
func (r *Reader) ReadBody() ([]byte, error) {
	length := -1
	sawHeader := false
	for {
		line, err := r.br.ReadString('\n')
		if err != nil {
			if err == io.EOF && !sawHeader && line == "" {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("jsonrpc: reading header: %w", err)
		}
		sawHeader = true
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("jsonrpc: malformed header line %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("jsonrpc: bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("jsonrpc: message without Content-Length")
	}
	if length > MaxBodyBytes {
		return nil, fmt.Errorf("jsonrpc: Content-Length %d exceeds limit %d", length, MaxBodyBytes)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r.br, body); err != nil {
		return nil, fmt.Errorf("jsonrpc: reading %d-byte body: %w", length, err)
	}
	return body, nil
}

// Read reads and decodes the next message. A body that is not valid JSON is
// returned as an *Error with CodeParseError and the stream stays usable.
func (r *Reader) Read() (*Message, error) {
	body, err := r.ReadBody()
	if err != nil {
		return nil, err
	}
	return Decode(body)
}

// Writer writes framed messages; it is safe for concurrent use, and each
// message is written whole.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteBody frames and writes one body.
func (w *Writer) WriteBody(body []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := fmt.Fprintf(w.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err := w.w.Write(body)
	return err
}

// Write encodes and writes m.
func (w *Writer) Write(m *Message) error {
	body, err := Encode(m)
	if err != nil {
		return err
	}
	return w.WriteBody(body)
}
