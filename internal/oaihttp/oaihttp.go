// Package oaihttp is the one HTTP transport for OpenAI-compatible servers
// (OpenAI, llama.cpp's llama-server, vLLM, Ollama), shared by lm/openai (the
// repair model) and search/llm (embeddings and chat). It plugs into
// github.com/sashabaranov/go-openai as its HTTPDoer (ClientConfig.HTTPClient)
// and can send hand-built requests too (llama.cpp's /infill).
//
// It owns the transport policy:
//   - at most MaxConcurrent requests in flight;
//   - retries after HTTP 429, 502, 503, 504 and refused or reset connections,
//     waiting as Retry-After says, else an exponential backoff with jitter;
//     a retry whose wait would end after the request context's deadline is
//     not waited for: the last attempt's error or response is returned;
//   - a POST whose connection the server cut mid-request (IsCut: it had the
//     request, and died or restarted on it) is sent again only as often as
//     its Call allows (Call.CutRetries, default never), and each such retry
//     is logged (Options.Logf): a server that dies on a request is not hit
//     with it silently up to the retry limit;
//   - a bound on every response body (MaxResponseBytes): a larger one is a
//     *TooLargeError naming the bound and its environment variable, read no
//     further than the bound, and not retried;
//   - a time limit per attempt (Timeout), which covers a body dripped slowly
//     and a server that never answers;
//   - per-call extra JSON body fields and the raw response body (Call), for
//     the fields go-openai's request types lack and the logprobs shapes its
//     response types lose.
//
// Key redaction (Redactor) is here too, for the error messages of both users.
package oaihttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// EnvMaxResponseBytes changes DefaultMaxResponseBytes for every transport
// whose Options leave MaxResponseBytes zero.
const EnvMaxResponseBytes = "REPILOT_MODEL_MAX_RESPONSE_BYTES"

// DefaultMaxResponseBytes bounds one response body: 32 MiB. A completion of
// 256 tokens with 20 alternatives each is under 1 MiB in llama.cpp's shape;
// a batch of 32 embeddings of 4,096 dimensions is about 2.5 MiB of JSON.
const DefaultMaxResponseBytes = 32 << 20

// Options configure a Transport. Zero fields take their defaults.
type Options struct {
	// Timeout bounds one HTTP attempt, reading the body included (default
	// 60 s).
	Timeout time.Duration
	// MaxConcurrent bounds requests in flight (default 4).
	MaxConcurrent int
	// MaxRetries is how often one request is retried (default 3; negative:
	// never).
	MaxRetries int
	// RetryBackoff is the first retry delay; it doubles per retry, with
	// jitter, up to 8 s. A Retry-After header wins. Default 250 ms.
	RetryBackoff time.Duration
	// MaxResponseBytes bounds one response body (default
	// $REPILOT_MODEL_MAX_RESPONSE_BYTES, else DefaultMaxResponseBytes).
	MaxResponseBytes int64
	// Logf receives one line for each request sent again after the server
	// cut its connection mid-request (nil: the standard logger, stderr).
	Logf func(format string, args ...any)
}

// Transport sends requests to an OpenAI-compatible server. It implements
// go-openai's HTTPDoer and is safe for concurrent use.
type Transport struct {
	hc       *http.Client
	sem      chan struct{}
	retries  int
	backoff  time.Duration
	maxBody  int64
	attempts atomic.Int64
	logf     func(format string, args ...any)
	// Sleep waits between attempts; tests replace it.
	Sleep func(context.Context, time.Duration) error
}

// WithRetryDefaults returns o with its unset time limit, concurrency,
// retries and backoff at their defaults: 60 s, 4 requests in flight, 3
// retries (a negative MaxRetries means none), 250 ms. Clients that show
// these settings (lm/openai's Config) fill them the same way.
func (o Options) WithRetryDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = 4
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 3
	} else if o.MaxRetries < 0 {
		o.MaxRetries = 0
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = 250 * time.Millisecond
	}
	return o
}

// New returns a Transport with o's policy. An unparsable
// $REPILOT_MODEL_MAX_RESPONSE_BYTES is an error naming it.
func New(o Options) (*Transport, error) {
	o = o.WithRetryDefaults()
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
		if v := os.Getenv(EnvMaxResponseBytes); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("$%s=%q: want a positive number of bytes", EnvMaxResponseBytes, v)
			}
			o.MaxResponseBytes = n
		}
	}
	logf := o.Logf
	if logf == nil {
		logf = log.Printf
	}
	return &Transport{
		hc: &http.Client{
			Timeout: o.Timeout,
			Transport: &http.Transport{
				Proxy:               http.ProxyFromEnvironment,
				DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
				MaxIdleConnsPerHost: o.MaxConcurrent,
				IdleConnTimeout:     90 * time.Second,
			},
		},
		sem:     make(chan struct{}, o.MaxConcurrent),
		retries: o.MaxRetries,
		backoff: o.RetryBackoff,
		maxBody: o.MaxResponseBytes,
		logf:    logf,
		Sleep:   sleepCtx,
	}, nil
}

// Attempts returns the HTTP requests sent so far, retries included.
func (t *Transport) Attempts() int64 { return t.attempts.Load() }

// MaxResponseBytes returns the response body bound in force.
func (t *Transport) MaxResponseBytes() int64 { return t.maxBody }

// TooLargeError is a response body over the bound. It is not retried: the
// same request would get the same answer.
type TooLargeError struct {
	Limit int64 // the bound in force (MaxResponseBytes), in bytes
}

// Error names the limit and the variable that sets it.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the response body exceeds the limit of %d bytes (set by $%s)", e.Limit, EnvMaxResponseBytes)
}

// Call carries one logical request's extra body fields into the transport
// and the raw response body back out.
type Call struct {
	// Extra fields are merged over the JSON request body's own.
	Extra map[string]any
	// Body is the raw response body of the last attempt.
	Body []byte
	// Attempts counts the HTTP attempts made for this request.
	Attempts int
	// Cut is the first attempt's error when the server closed the
	// connection before its answer was complete (IsCut: it crashed, was
	// killed or restarted mid-request); nil otherwise. The request is
	// retried like a refused one, and a later attempt's error would hide
	// this one, so callers report it beside the last error (Explain).
	Cut error
	// CutRetries is how often a POST is sent again after the server cut
	// the connection mid-request (default 0: never; never more than the
	// transport's MaxRetries). Such a server had the request and may have
	// died of it, so each endpoint decides; each retry is logged. Requests
	// without a body effect (GET, HEAD) are retried like refused ones.
	CutRetries int
	// Cuts counts the attempts whose connection was cut mid-request.
	Cuts int
}

type callKey struct{}

// WithCall returns ctx carrying c to the Transport that sends a request made
// with it.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

const maxBackoff = 8 * time.Second

// Do sends req, retrying on 429, 502, 503, 504 and refused or reset
// connections. The response it returns has its body fully read (kept in
// the request context's Call, if any, and readable again from resp.Body).
func (t *Transport) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	cl, _ := ctx.Value(callKey{}).(*Call)
	if cl == nil {
		cl = &Call{}
	}
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	if len(cl.Extra) > 0 && len(body) > 0 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("merging request fields: %w", err)
		}
		for k, v := range cl.Extra {
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("merging request field %s: %w", k, err)
			}
			m[k] = raw
		}
		var err error
		if body, err = json.Marshal(m); err != nil {
			return nil, err
		}
	}
	select {
	case t.sem <- struct{}{}:
		defer func() { <-t.sem }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for attempt := 0; ; attempt++ {
		r := req.Clone(ctx)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		cl.Attempts++
		t.attempts.Add(1)
		resp, err := t.hc.Do(r)
		var wait time.Duration
		if err == nil {
			data, rerr := t.readBody(resp)
			if rerr != nil {
				err = rerr
			} else {
				cl.Body = data
				resp.Body = io.NopCloser(bytes.NewReader(data))
				if !RetryableStatus(resp.StatusCode) || attempt >= t.retries {
					return resp, nil
				}
				wait = RetryAfter(resp.Header.Get("Retry-After"))
			}
		}
		cut := err != nil && IsCut(err)
		if cut {
			cl.Cuts++
			if cl.Cut == nil {
				cl.Cut = err
			}
		}
		if err != nil && (!retryableErr(err) || attempt >= t.retries || ctx.Err() != nil) {
			return nil, err
		}
		if cut && !safeMethod(req.Method) {
			if cl.Cuts > cl.CutRetries {
				return nil, err
			}
			t.logf("%s %s: %s; sending the request again (retry %d after a cut, at most %d)",
				req.Method, SafeURL(req.URL.String()), CutMessage(err), cl.Cuts, cl.CutRetries)
		}
		if wait <= 0 {
			wait = t.backoff << attempt
			wait += time.Duration(rand.Int64N(int64(wait)/4 + 1)) // jitter
		}
		if wait > maxBackoff {
			wait = maxBackoff
		}
		// A retry after the request's deadline cannot be sent: waiting for
		// it would only turn this attempt's failure (a server down or
		// killed) into the deadline's error, which callers with a budget
		// (ghost text) read as "out of time" and drop silently.
		if dl, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(dl) {
			if err == nil {
				return resp, nil
			}
			return nil, err
		}
		if err := t.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// readBody reads and closes resp's body, at most maxBody bytes: a declared
// or actual length over it is a *TooLargeError.
func (t *Transport) readBody(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	if resp.ContentLength > t.maxBody {
		return nil, &TooLargeError{Limit: t.maxBody}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, t.maxBody+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > t.maxBody {
		return nil, &TooLargeError{Limit: t.maxBody}
	}
	return data, nil
}

// safeMethod: a request without effects on the server (RFC 9110 section
// 9.2.1), which may be sent again after a cut like after a refusal.
func safeMethod(m string) bool {
	return m == "" || m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// RetryableStatus reports whether an HTTP status code is worth retrying:
// 429 (rate limits) and 502, 503, 504 (a server that is starting,
// overloaded or behind a failing proxy). A plain 500 is not retried:
// llama.cpp uses it for deterministic failures (a prompt over the context, a
// reply its chat template's parser rejects).
func RetryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

// retryableErr: the request never reached a handler (refused, reset, a
// keep-alive connection closed under us). Timeouts are not retried: the
// server is up but slow, and a retry would only multiply the wait.
func retryableErr(err error) bool {
	if IsTimeout(err) {
		return false
	}
	var tl *TooLargeError
	if errors.As(err, &tl) {
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// RetryAfter parses a Retry-After header (seconds or an HTTP date; RFC 9110
// section 10.2.3); 0 when absent or unparsable.
func RetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// IsUnreachable reports whether err says no connection could be made.
func IsUnreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// IsCut reports whether err says the server closed or reset the connection
// before its answer was complete (io.EOF, io.ErrUnexpectedEOF, ECONNRESET):
// a server that crashed, was killed or restarted with the request in
// flight, or a keep-alive connection it closed under us. Timeouts are not
// cuts.
func IsCut(err error) bool {
	if IsTimeout(err) {
		return false
	}
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// CutMessage says that the server closed the connection mid-request, with
// err's inner text (IsCut errors).
func CutMessage(err error) string {
	return "the server closed the connection before its answer was complete (" + InnerMessage(err) +
		"): did it crash or restart? (see its log)"
}

// UnreachableMessage says that no connection could be made, with err's
// inner text (IsUnreachable errors).
func UnreachableMessage(err error) string {
	return "cannot connect (" + InnerMessage(err) + "): is the model server running at this address?"
}

// Explain words err, the error of a request sent with cl, for a message:
// a cut or refused connection gets the words of CutMessage or
// UnreachableMessage, any other error the caller's own words, other. When
// an earlier attempt was cut (cl.Cut) and err is not a cut, the cut comes
// first ("...; then <err>"): the last retry's "cannot connect" alone would
// read as a server that was never there. A cancelled or expired ctx gets
// other as it is. Both users of the transport (lm/openai, search/llm)
// word failures this way.
func Explain(ctx context.Context, err error, cl *Call, other string) string {
	if ctx.Err() != nil {
		return other
	}
	msg := other
	switch {
	case IsTimeout(err):
	case IsUnreachable(err):
		msg = UnreachableMessage(err)
	case IsCut(err):
		msg = CutMessage(err)
	}
	if cl != nil && cl.Cut != nil && !IsCut(err) {
		msg = CutMessage(cl.Cut) + "; then " + msg
	}
	return msg
}

// SafeURL returns raw for messages without its user info, query and
// fragment (any may carry credentials). Text that is no URL is returned as
// written unless it holds "@" (possibly "user:password@host"), so that a
// mistyped "127.0.0.1:8080" is shown to its author.
func SafeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if strings.Contains(raw, "@") {
			return "(unparsable URL)"
		}
		return raw
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	if out := u.String(); !strings.Contains(out, "@") {
		return out
	}
	return "(unparsable URL)" // "user:secret@host" parses as scheme "user"
}

// IsTimeout reports whether err is a network or client timeout.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// InnerMessage is err's text without the URL that net/http puts in front
// (the URL may carry a query with credentials).
func InnerMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	return err.Error()
}

// Redactor removes secrets from text that may reach a log or an error: the
// API key itself and anything after "Bearer ".
type Redactor struct{ secrets []string }

// NewRedactor returns a Redactor for the given secrets (those shorter than 4
// bytes are ignored: they would redact ordinary words).
func NewRedactor(secrets ...string) Redactor {
	var r Redactor
	for _, s := range secrets {
		if len(s) >= 4 {
			r.secrets = append(r.secrets, s)
		}
	}
	return r
}

// Clean returns s with the secrets and bearer tokens replaced by [REDACTED].
func (r Redactor) Clean(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, "[REDACTED]")
	}
	// Anything after "Bearer " is a credential, whoever echoed it.
	var b strings.Builder
	for {
		i := indexFold(s, "bearer ")
		if i < 0 {
			b.WriteString(s)
			break
		}
		end := i + len("bearer ")
		j := end
		for j < len(s) && !strings.ContainsRune(" \"',\n\t}", rune(s[j])) {
			j++
		}
		b.WriteString(s[:end])
		if j > end {
			b.WriteString("[REDACTED]")
		}
		s = s[j:]
	}
	return b.String()
}

// indexFold is strings.Index ignoring ASCII case (byte offsets into s stay
// valid, unlike searching strings.ToLower(s)).
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
