package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func TestReaderFraming(t *testing.T) {
	in := "Content-Length: 17\r\nContent-Type: x\r\n\r\n{\"method\":\"a/b\"}\n" +
		"Content-Length: 3\r\n\r\nnot" +
		"Content-Length: 27\r\n\r\n{\"id\":1,\"result\":{\"x\":[]}}\n"
	r := NewReader(strings.NewReader(in))
	m, err := r.Read()
	if err != nil || m.Method != "a/b" || !m.IsNotification() {
		t.Fatalf("first: %+v %v", m, err)
	}
	if string(m.Raw) != "{\"method\":\"a/b\"}\n" {
		t.Fatalf("raw body not kept: %q", m.Raw)
	}
	if _, err := r.Read(); err == nil {
		t.Fatal("bad JSON accepted")
	} else if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeParseError {
		t.Fatalf("want parse error, got %v", err)
	}
	m, err = r.Read()
	if err != nil || !m.IsResponse() || m.IDKey() != "1" {
		t.Fatalf("third: %+v %v", m, err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}

func TestReaderRejectsBadHeaders(t *testing.T) {
	for _, in := range []string{
		"Content-Type: x\r\n\r\n{}",
		"Content-Length: -4\r\n\r\n{}",
		"Content-Length: 99999999999\r\n\r\n{}",
		"garbage\r\n\r\n",
		"Content-Length: 10\r\n\r\n{}",
	} {
		if _, err := NewReader(strings.NewReader(in)).Read(); err == nil || err == io.EOF {
			t.Errorf("%q: want error, got %v", in, err)
		}
	}
}

func TestConnCallNotifyCancel(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	seen := make(chan string, 8)
	server := NewConn(b, b, "s/", func(ctx context.Context, m *Message) (any, error) {
		seen <- m.Method
		switch m.Method {
		case "echo":
			return json.RawMessage(m.Params), nil
		case "fail":
			return nil, &Error{Code: CodeInvalidParams, Message: "no"}
		case "slow":
			time.Sleep(300 * time.Millisecond) // outlives the caller's context
			return nil, nil
		}
		return nil, nil
	})
	client := NewConn(a, a, "c/", nil)
	go server.Run(context.Background())
	go client.Run(context.Background())

	var out map[string]int
	if err := client.Call(context.Background(), "echo", map[string]int{"n": 3}, &out); err != nil || out["n"] != 3 {
		t.Fatalf("echo: %v %v", out, err)
	}
	err := client.Call(context.Background(), "fail", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParams {
		t.Fatalf("fail: %v", err)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if err := client.Call(done, "echo", 1, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("call with a cancelled context: %v", err)
	}
	ctx, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	if err := client.Call(ctx, "slow", 1, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call cancelled in flight: %v", err)
	}
	if err := client.Notify("note", 1); err != nil {
		t.Fatal(err)
	}
	got := []string{}
	timeout := time.After(2 * time.Second)
	for len(got) < 5 {
		select {
		case m := <-seen:
			got = append(got, m)
		case <-timeout:
			t.Fatalf("saw only %v", got)
		}
	}
	// echo, fail, slow, then $/cancelRequest for slow, then note; the call
	// with an already cancelled context sends nothing.
	joined := strings.Join(got, ",")
	if !strings.Contains(joined, "$/cancelRequest") || !strings.Contains(joined, "note") {
		t.Fatalf("got %v", got)
	}
	a.Close()
	if err := client.Call(context.Background(), "echo", 1, nil); err == nil {
		t.Fatal("call on closed conn succeeded")
	}
}

func TestEncodeKeepsRaw(t *testing.T) {
	raw := []byte(`{"jsonrpc":"2.0","method":"language/status","params":{"type":"ServiceReady","x":1}}`)
	m, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := Encode(m)
	if !bytes.Equal(out, raw) {
		t.Fatalf("re-encoded %s", out)
	}
	out, _ = Encode(&Message{ID: json.RawMessage("7")})
	if string(out) != `{"jsonrpc":"2.0","id":7,"result":null}` {
		t.Fatalf("empty response encoded as %s", out)
	}
}

func TestIDKeyCanonical(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{`"repilot/4"`, `"repilot\/4"`},
		{`"A"`, `"\u0041"`},
		{`1`, ` 1 `},
		{`1`, `1.0`},
	} {
		ma, mb := &Message{ID: json.RawMessage(c.a)}, &Message{ID: json.RawMessage(c.b)}
		if ma.IDKey() != mb.IDKey() {
			t.Errorf("%s and %s: keys %q and %q differ", c.a, c.b, ma.IDKey(), mb.IDKey())
		}
	}
	if (&Message{ID: json.RawMessage(`1`)}).IDKey() == (&Message{ID: json.RawMessage(`"1"`)}).IDKey() {
		t.Error("number 1 and string \"1\" share a key")
	}
}

func TestValidID(t *testing.T) {
	for _, c := range []struct {
		id   string
		want bool
	}{
		{``, true}, {`null`, true}, {` null `, true}, {`1`, true}, {`-3`, true}, {`1.5`, true}, {`"x"`, true}, {` "x"`, true},
		{`{}`, false}, {`{"a":1}`, false}, {`[1]`, false}, {`true`, false}, {`false`, false}, {` {}`, false},
	} {
		if got := ValidID(json.RawMessage(c.id)); got != c.want {
			t.Errorf("ValidID(%s) = %v, want %v", c.id, got, c.want)
		}
	}
	// Decode leaves the raw id: a body's id runs through ValidID as sent.
	m, err := Decode([]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`))
	if err != nil || ValidID(m.ID) {
		t.Errorf("Decode of an object id: %v, ValidID %v", err, ValidID(m.ID))
	}
}

// TestConnTooLargeAnswerEndsTheCall: an answer over the body limit ends the
// Call waiting for it with an error naming the limit, and a request over it
// is answered with an error; before, the Call waited for its context (the
// engine's JDT LS requests: their time limit) and the peer forever.
func TestConnTooLargeAnswerEndsTheCall(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	answered := make(chan struct{})
	client := NewConn(a, a, "c/", func(_ context.Context, m *Message) (any, error) {
		if m.Method == "peer/answered" {
			close(answered)
		}
		return nil, nil
	})
	go client.Run(context.Background())
	pad := strings.Repeat("z", MaxBodyBytes)
	go func() {
		r, w := NewReader(b), NewWriter(b)
		m, err := r.Read()
		if err != nil {
			return
		}
		_ = w.WriteBody([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":"` + pad + `"}`))
		_ = w.WriteBody([]byte(`{"jsonrpc":"2.0","id":9,"method":"peer/ask","params":"` + pad + `"}`))
		if m, err := r.Read(); err == nil && m.Error != nil && string(m.ID) == "9" {
			_ = w.WriteBody([]byte(`{"jsonrpc":"2.0","method":"peer/answered"}`))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := client.Call(ctx, "big", nil, nil)
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), EnvMaxBody) {
		t.Fatalf("call answered over the limit: %v", err)
	}
	select {
	case <-answered:
	case <-time.After(30 * time.Second):
		t.Fatal("the peer's request over the limit was not answered with an error")
	}
}
