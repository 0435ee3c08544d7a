package jsonrpc

// skim.go reads the envelope of a body too large to keep (Limits.MaxBody)
// while it is skipped: the top-level "id" and "method" and the document's
// "params.textDocument.uri", so that the proxy can answer a request it
// cannot read and say which document an edit it lost was for. Memory stays
// bounded whatever the body holds: nothing but those short values is kept,
// and nesting deeper than maxSkimDepth ends the scan (the rest is skipped).

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
)

// maxSkimField bounds a value skim keeps (an id, a method, a URI).
const maxSkimField = 4096

// maxSkimDepth bounds the nesting skim follows.
const maxSkimDepth = 64

// errSkimStop ends a scan early: bad JSON or deeper than maxSkimDepth.
var errSkimStop = errors.New("skim: stop")

type skimmer struct {
	r    *bufio.Reader
	left int64 // bytes of the body not read yet
	// what was found (raw JSON values)
	id, method, uri []byte
}

// skimBody reads exactly n bytes of r and returns what it found of the
// envelope; err is only a read error of r (a body that is not JSON, or not
// an object, finds nothing).
func skimBody(r *bufio.Reader, n int64) (id json.RawMessage, method, uri string, err error) {
	s := &skimmer{r: r, left: n}
	serr := s.value(0, 0)
	if serr != nil && serr != errSkimStop {
		return nil, "", "", serr
	}
	if s.left > 0 {
		if _, err := io.CopyN(io.Discard, r, s.left); err != nil {
			return nil, "", "", err
		}
	}
	if len(s.id) > 0 && ValidID(s.id) {
		id = json.RawMessage(s.id)
	}
	if len(s.method) > 0 {
		_ = json.Unmarshal(s.method, &method)
	}
	if len(s.uri) > 0 {
		_ = json.Unmarshal(s.uri, &uri)
	}
	return id, method, uri, nil
}

// Paths whose values skim keeps.
const (
	pathOther = iota
	pathTop
	pathID
	pathMethod
	pathParams
	pathTextDocument
	pathURI
)

func (s *skimmer) byte() (byte, error) {
	if s.left <= 0 {
		return 0, errSkimStop
	}
	c, err := s.r.ReadByte()
	if err != nil {
		return 0, err
	}
	s.left--
	return c, nil
}

func (s *skimmer) unread() {
	_ = s.r.UnreadByte()
	s.left++
}

func (s *skimmer) ws() (byte, error) {
	for {
		c, err := s.byte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, nil
		}
	}
}

// child returns the path of key under an object at path.
func child(path int, key []byte) int {
	k := string(key)
	switch {
	case path == pathTop && k == `"id"`:
		return pathID
	case path == pathTop && k == `"method"`:
		return pathMethod
	case path == pathTop && k == `"params"`:
		return pathParams
	case path == pathParams && k == `"textDocument"`:
		return pathTextDocument
	case path == pathTextDocument && k == `"uri"`:
		return pathURI
	}
	return pathOther
}

// value reads one JSON value at path (depth levels deep); the top-level
// value has path 0 and must be an object.
func (s *skimmer) value(path, depth int) error {
	if depth > maxSkimDepth {
		return errSkimStop
	}
	c, err := s.ws()
	if err != nil {
		return err
	}
	if depth == 0 {
		if c != '{' {
			return errSkimStop
		}
		path = pathTop
	}
	var keep *[]byte
	switch path {
	case pathID:
		keep = &s.id
	case pathMethod:
		keep = &s.method
	case pathURI:
		keep = &s.uri
	}
	switch c {
	case '{', '[':
		return s.members(c, path, depth)
	case '"':
		buf := []byte{'"'}
		if keep == nil {
			return s.str(nil)
		}
		if err := s.str(&buf); err != nil {
			return err
		}
		*keep = buf
		return nil
	default: // a number, true, false or null
		buf := []byte{c}
		for {
			c, err := s.byte()
			if err == errSkimStop {
				break
			}
			if err != nil {
				return err
			}
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				s.unread()
				break
			}
			if len(buf) < maxSkimField {
				buf = append(buf, c)
			}
		}
		if keep != nil && len(buf) < maxSkimField {
			*keep = buf
		}
		return nil
	}
}

// members reads the members of an object or an array at path after its
// opening bracket open, through its closing bracket.
func (s *skimmer) members(open byte, path, depth int) error {
	end := byte('}')
	if open == '[' {
		end = ']'
	}
	for first := true; ; first = false {
		c, err := s.ws()
		if err != nil {
			return err
		}
		if c == end && first {
			return nil
		}
		if open == '{' {
			err = s.field(c, path, depth)
		} else {
			s.unread()
			err = s.value(pathOther, depth+1)
		}
		if err != nil {
			return err
		}
		if c, err = s.ws(); err != nil {
			return err
		}
		if c == end {
			return nil
		}
		if c != ',' {
			return errSkimStop
		}
	}
}

// field reads an object's member `"key": value`, c being its first byte.
func (s *skimmer) field(c byte, path, depth int) error {
	if c != '"' {
		return errSkimStop
	}
	key := []byte{'"'}
	if err := s.str(&key); err != nil {
		return err
	}
	c, err := s.ws()
	if err != nil {
		return err
	}
	if c != ':' {
		return errSkimStop
	}
	return s.value(child(path, key), depth+1)
}

// str reads the rest of a string after its opening quote; with keep, it
// appends the string's bytes (the closing quote included) while they fit
// in maxSkimField, and empties *keep when they do not.
func (s *skimmer) str(keep *[]byte) error {
	esc := false
	for {
		c, err := s.byte()
		if err != nil {
			return err
		}
		if keep != nil && *keep != nil {
			if len(*keep) < maxSkimField {
				*keep = append(*keep, c)
			} else {
				*keep = nil // too long to keep
			}
		}
		switch {
		case esc:
			esc = false
		case c == '\\':
			esc = true
		case c == '"':
			return nil
		}
	}
}
