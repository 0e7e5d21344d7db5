// Package fileerr is the one error type for malformed user files: it names the
// file and the 1-based line (0 when the problem is not tied to a line).
package fileerr

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Error reports a problem at File:Line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// New returns an *Error with a formatted message.
func New(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// JSON returns the *Error of a failed json.Unmarshal of data read from
// file: the line of a syntax error (0 for other errors), what the
// message says the file holds, and the decoder's message.
func JSON(file string, data []byte, what string, err error) *Error {
	line := 0
	if se, ok := err.(*json.SyntaxError); ok {
		line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte{'\n'})
	}
	return New(file, line, "%s: %v", what, err)
}
