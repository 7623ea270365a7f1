package toolregistry

import "errors"

// Code is a status the C library returns; the values are tr_status and never change.
type Code int32

// The status codes of include/toolregistry.h.
const (
	CodeOK              Code = 0
	CodeNullArgument    Code = 1
	CodeInvalidUTF8     Code = 2
	CodeInvalidJSON     Code = 3
	CodeInvalidArgument Code = 4
	CodeNotFound        Code = 5
	CodeTooLarge        Code = 6
	CodeInternal        Code = 7
	CodePanic           Code = 8
)

// Error is a failure reported by the library: the status and its one-line message. It prints as
// `toolregistry: not found: no tool named "nope" is registered` (the engine's message names
// the kind of failure); a sentinel prints as `toolregistry: TR_STATUS_NOT_FOUND`.
//
// Compare with the sentinels using errors.Is, which matches on Code alone:
//
//	if errors.Is(err, toolregistry.ErrNotFound) { ... }
//
// and use errors.As to read the message.
type Error struct {
	Code    Code
	Message string
}

// Error returns "toolregistry: " and the engine's message.
func (e *Error) Error() string {
	if e.Message == "" {
		return "toolregistry: " + e.Code.String()
	}
	return "toolregistry: " + e.Message
}

// Is reports whether target is the sentinel for e's code, so that errors.Is(err, ErrNotFound)
// holds for every not-found error whatever its message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// Sentinels, one per failure status; match them with errors.Is.
var (
	ErrNullArgument    = &Error{Code: CodeNullArgument}
	ErrInvalidUTF8     = &Error{Code: CodeInvalidUTF8}
	ErrInvalidJSON     = &Error{Code: CodeInvalidJSON}
	ErrInvalidArgument = &Error{Code: CodeInvalidArgument}
	ErrNotFound        = &Error{Code: CodeNotFound}
	ErrTooLarge        = &Error{Code: CodeTooLarge}
	ErrInternal        = &Error{Code: CodeInternal}
	ErrPanic           = &Error{Code: CodePanic}
)

// ErrClosed is returned by every method of a Registry, Discoverer or Conversation after its Close.
var ErrClosed = errors.New("toolregistry: use of closed registry, discoverer or conversation")

// statusError is the error for a status and its message; nil for CodeOK.
func statusError(code Code, message string) error {
	if code == CodeOK {
		return nil
	}
	return &Error{Code: code, Message: message}
}
