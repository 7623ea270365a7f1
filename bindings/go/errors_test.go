package toolregistry

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

var sentinels = map[Code]*Error{
	CodeNullArgument:    ErrNullArgument,
	CodeInvalidUTF8:     ErrInvalidUTF8,
	CodeInvalidJSON:     ErrInvalidJSON,
	CodeInvalidArgument: ErrInvalidArgument,
	CodeNotFound:        ErrNotFound,
	CodeTooLarge:        ErrTooLarge,
	CodeInternal:        ErrInternal,
	CodePanic:           ErrPanic,
}

// Every failure status maps to exactly one sentinel, through the same check the C calls use.
func TestEveryStatusMapsToItsSentinel(t *testing.T) {
	if len(sentinels) != 8 {
		t.Fatalf("one sentinel per failure status: %d", len(sentinels))
	}
	for code, sentinel := range sentinels {
		err := statusError(code, "what went wrong")
		var e *Error
		if !errors.As(err, &e) || e.Code != code || e.Message != "what went wrong" {
			t.Fatalf("%v: got %#v", code, err)
		}
		for other, s := range sentinels {
			if got := errors.Is(err, s); got != (other == code) {
				t.Errorf("errors.Is(%v error, %v) = %v", code, other, got)
			}
		}
		if errors.Is(err, ErrClosed) {
			t.Errorf("%v error must not match ErrClosed", code)
		}
		wrapped := fmt.Errorf("loading tools: %w", err)
		if !errors.Is(wrapped, sentinel) {
			t.Errorf("wrapped %v error must still match its sentinel", code)
		}
		if want := "toolregistry: what went wrong"; err.Error() != want {
			t.Errorf("Error() = %q, want %q", err.Error(), want)
		}
		if want := "toolregistry: " + code.String(); sentinel.Error() != want {
			t.Errorf("sentinel Error() = %q, want %q", sentinel.Error(), want)
		}
		if !strings.HasPrefix(code.String(), "TR_STATUS_") || code.String() == "TR_STATUS_UNKNOWN" {
			t.Errorf("%d has no C name: %q", int32(code), code.String())
		}
	}
	if got := Code(99).String(); got != "TR_STATUS_UNKNOWN" {
		t.Errorf("Code(99) = %q", got)
	}
	if statusError(CodeOK, "") != nil {
		t.Error("TR_STATUS_OK must be no error")
	}
	// A sentinel does not match another error of its code by identity alone: Is is by code.
	if !errors.Is(&Error{Code: CodeNotFound, Message: "x"}, ErrNotFound) || errors.Is(ErrNotFound, &Error{Code: CodeNotFound, Message: "x"}) {
		t.Error("Is must match on code against a sentinel, and only against a sentinel")
	}
}

// The statuses the safe API can reach, each from a real C call.
func TestStatusesFromRealCalls(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	wantCode(t, nativeNullArgumentProbe(), ErrNullArgument)
	wantCode(t, r.Unregister("\xc3\x28"), ErrInvalidUTF8)
	_, err := r.RegisterJSON([]byte(`[{"name": "x"`))
	wantCode(t, err, ErrInvalidJSON)
	_, err = r.RegisterJSON([]byte(strings.Repeat("[", 200) + strings.Repeat("]", 200)))
	wantCode(t, err, ErrInvalidJSON) // nested deeper than 128
	wantCode(t, r.SetEnabled("", true), ErrNotFound)
	_, err = r.Register(Tool{Name: ""})
	wantCode(t, err, ErrInvalidArgument)
	wantCode(t, r.Unregister("missing"), ErrNotFound)
	_, err = r.Register(Tool{Name: "ok", Namespace: strings.Repeat("n", 1025)})
	wantCode(t, err, ErrTooLarge)
	// Each message is one line and says what was wrong.
	err = r.Unregister("missing")
	var e *Error
	if !errors.As(err, &e) || strings.ContainsAny(e.Message, "\n\r") || !strings.Contains(e.Message, "missing") {
		t.Fatalf("message should be one line naming the tool: %q", e.Message)
	}
}

// A 65 MiB input is refused before parsing; kept out of -short runs for its memory.
func TestTooLargeInput(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 65 MiB")
	}
	r := newTestRegistry(t)
	big := make([]byte, 0, 65<<20)
	big = append(big, `{"name": "big", "description": "`...)
	big = append(big, strings.Repeat("a", 65<<20)...)
	big = append(big, `"}`...)
	_, err := r.RegisterJSON(big)
	wantCode(t, err, ErrTooLarge)
}
