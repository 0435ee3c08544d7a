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

// Error is a JSON-RPC 2.0 error object (LSP 3.17 "ResponseMessage",
// ResponseError): Code is one of the Code* constants or a server's own,
// Message a one-line description, Data optional raw JSON (nil when absent).
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error formats e as "jsonrpc error <code>: <message>" (Data left out).
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

// ValidID reports whether id may be a message's id: absent or null (a
// notification, or an error response to a message whose id could not be
// read), a number or a string. LSP 3.17 "Base Protocol" allows integer |
// string; JSON-RPC 2.0 allows numbers with fractions but no objects, arrays
// or booleans. id is the raw JSON as Decode left it.
func ValidID(id json.RawMessage) bool {
	raw := bytes.TrimSpace(id)
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	c := raw[0]
	return c == '"' || c == '-' || ('0' <= c && c <= '9')
}

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

// Limits bound what a peer may send in one message's framing (LSP 3.17
// "Base Protocol": header lines end in \r\n, the header part ends with an
// empty line, Content-Length is required). Each has an environment variable
// that changes it (see LimitsFromEnv) and is named in the error when hit.
type Limits struct {
	// MaxHeaderLine bounds one header line in bytes, \r\n included
	// (default 4096; $REPILOT_LSP_MAX_HEADER_LINE).
	MaxHeaderLine int
	// MaxHeaders bounds the header lines of one message (default 16;
	// $REPILOT_LSP_MAX_HEADERS).
	MaxHeaders int
	// MaxBody bounds one body in bytes (default MaxBodyBytes, 64 MiB;
	// $REPILOT_LSP_MAX_BODY). A larger body is skipped, not read into
	// memory, and reported as a *TooLargeError; the stream stays usable.
	MaxBody int
}

// Environment variables of LimitsFromEnv.
const (
	EnvMaxHeaderLine = "REPILOT_LSP_MAX_HEADER_LINE"
	EnvMaxHeaders    = "REPILOT_LSP_MAX_HEADERS"
	EnvMaxBody       = "REPILOT_LSP_MAX_BODY"
)

// DefaultLimits are the limits of NewReader.
var DefaultLimits = Limits{MaxHeaderLine: 4096, MaxHeaders: 16, MaxBody: MaxBodyBytes}

// MaxLimits bounds what LimitsFromEnv accepts: a body of 1 GiB, a header
// line of 1 MiB (the reader's buffer is that large, allocated at once),
// 1,000 header lines. A larger setting is a mistake, and would let a peer
// make the reader allocate it.
var MaxLimits = Limits{MaxHeaderLine: 1 << 20, MaxHeaders: 1000, MaxBody: 1 << 30}

// LimitsFromEnv returns DefaultLimits with each limit whose variable getenv
// returns as a positive integer replaced by it; a variable that is set but
// not a positive integer, or over its bound in MaxLimits, is an error
// naming it.
func LimitsFromEnv(getenv func(string) string) (Limits, error) {
	l := DefaultLimits
	for _, v := range []struct {
		env string
		p   *int
		max int
	}{{EnvMaxHeaderLine, &l.MaxHeaderLine, MaxLimits.MaxHeaderLine}, {EnvMaxHeaders, &l.MaxHeaders, MaxLimits.MaxHeaders},
		{EnvMaxBody, &l.MaxBody, MaxLimits.MaxBody}} {
		s := getenv(v.env)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return DefaultLimits, fmt.Errorf("$%s=%q: want a positive number", v.env, s)
		}
		if n > v.max {
			return DefaultLimits, fmt.Errorf("$%s=%q: want at most %d", v.env, s, v.max)
		}
		*v.p = n
	}
	return l, nil
}

// TooLargeError reports a body over Limits.MaxBody. The body was skipped,
// so the stream is still framed and reading can go on. While it was
// skipped, its envelope was read without keeping the body (skim.go): the
// fields below are set when the body is a JSON object that has them.
type TooLargeError struct {
	// Length is the message's Content-Length and Limit the reader's
	// Limits.MaxBody, both in bytes.
	Length, Limit int
	// ID is the message's id (a number or a string; nil when absent,
	// null, of another type or over 4 KiB).
	ID json.RawMessage
	// Method is the message's method ("" for a response).
	Method string
	// URI is params.textDocument.uri ("" when absent): the document a
	// didOpen or didChange was for.
	URI string
}

// Error says the length, the limit and the variable that sets it.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("jsonrpc: Content-Length %d exceeds the limit of %d bytes (set by $%s); the message was skipped", e.Length, e.Limit, EnvMaxBody)
}

// Reader reads framed messages from a byte stream. It is not safe for
// concurrent use.
type Reader struct {
	br  *bufio.Reader
	lim Limits
}

// NewReader returns a Reader over r with DefaultLimits.
func NewReader(r io.Reader) *Reader { return NewReaderLimits(r, DefaultLimits) }

// NewReaderLimits returns a Reader over r with the given limits (a zero
// field takes its default).
func NewReaderLimits(r io.Reader, l Limits) *Reader {
	if l.MaxHeaderLine <= 0 {
		l.MaxHeaderLine = DefaultLimits.MaxHeaderLine
	}
	if l.MaxHeaders <= 0 {
		l.MaxHeaders = DefaultLimits.MaxHeaders
	}
	if l.MaxBody <= 0 {
		l.MaxBody = DefaultLimits.MaxBody
	}
	size := 64 << 10
	if l.MaxHeaderLine > size {
		size = l.MaxHeaderLine
	}
	return &Reader{br: bufio.NewReaderSize(r, size), lim: l}
}

// ReadBody reads the next message's body bytes. It returns io.EOF only at a
// clean end of stream (between messages). Empty lines before a message's
// header are skipped: some clients end a body with \r\n. Everything else is
// an error naming the problem: a header line over Limits.MaxHeaderLine or more
// than Limits.MaxHeaders lines, a line that is not "Name: value", a missing,
// repeated or bad Content-Length, a stream that ends inside a header or body
// (io.ErrUnexpectedEOF), and a body over Limits.MaxBody (*TooLargeError,
// after which the stream is still usable).
func (r *Reader) ReadBody() ([]byte, error) {
	length := -1
	headers := 0
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && headers == 0 && len(line) == 0 {
				return nil, io.EOF
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("jsonrpc: reading header: %w", err)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if headers == 0 {
				continue // blank lines between messages
			}
			break
		}
		headers++
		if headers > r.lim.MaxHeaders {
			return nil, fmt.Errorf("jsonrpc: more than %d header lines (limit set by $%s)", r.lim.MaxHeaders, EnvMaxHeaders)
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, fmt.Errorf("jsonrpc: malformed header line %q", truncate(line))
		}
		if strings.EqualFold(string(bytes.TrimSpace(name)), "Content-Length") {
			if length >= 0 {
				return nil, fmt.Errorf("jsonrpc: repeated Content-Length header (%q after %d)", truncate(value), length)
			}
			n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("jsonrpc: bad Content-Length %q", truncate(value))
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("jsonrpc: message without Content-Length")
	}
	if length > r.lim.MaxBody {
		id, method, uri, err := skimBody(r.br, int64(length))
		if err != nil {
			return nil, fmt.Errorf("jsonrpc: skipping a %d-byte body over the limit of %d: %w", length, r.lim.MaxBody, unexpected(err))
		}
		return nil, &TooLargeError{Length: length, Limit: r.lim.MaxBody, ID: id, Method: method, URI: uri}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r.br, body); err != nil {
		return nil, fmt.Errorf("jsonrpc: reading %d-byte body: %w", length, unexpected(err))
	}
	return body, nil
}

// readLine reads one line, '\n' included, of at most MaxHeaderLine bytes.
// The returned slice is valid until the next read.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if len(line) > r.lim.MaxHeaderLine || err == bufio.ErrBufferFull {
		return nil, fmt.Errorf("header line longer than %d bytes (limit set by $%s)", r.lim.MaxHeaderLine, EnvMaxHeaderLine)
	}
	return line, err
}

// unexpected turns io.EOF in the middle of a message into io.ErrUnexpectedEOF,
// so that no caller takes a cut-off message for a clean end of stream.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// truncate shortens a peer's bytes for an error message.
func truncate(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "..."
	}
	return string(b)
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

// WriteBody frames and writes one body: a Content-Length header (in bytes,
// LSP 3.17 "Base Protocol") and body as given. It returns the first error of
// the underlying writer, after which the stream may be cut mid-message.
// Safe for concurrent use: one body is written whole before the next.
func (w *Writer) WriteBody(body []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := fmt.Fprintf(w.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err := w.w.Write(body)
	return err
}

// Write encodes m (Encode: Raw as is when set, else the envelope with
// "jsonrpc":"2.0") and writes it with WriteBody; an encoding error writes
// nothing.
func (w *Writer) Write(m *Message) error {
	body, err := Encode(m)
	if err != nil {
		return err
	}
	return w.WriteBody(body)
}
