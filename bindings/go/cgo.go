package toolregistry

// This is the only file that talks to C. It links the static library from the cargo target
// directory of this checkout, so `go test` needs neither a library path nor LD_LIBRARY_PATH.
// Flags from the CGO_CFLAGS and CGO_LDFLAGS environment variables come first on the command
// line, so `CGO_CFLAGS=-I/opt/tr/include CGO_LDFLAGS=-L/opt/tr/lib` picks up a toolregistry.h
// and libtoolregistry.a installed elsewhere. The extra system libraries are the ones
// `rustc --print native-static-libs` lists for the static library.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -l:libtoolregistry.a -lgcc_s -lutil -lrt -lpthread -lm -ldl
#include <stdlib.h>
#include <string.h>
#include "toolregistry.h"
*/
import "C"

import (
	"bytes"
	"fmt"
	"strings"
	"unsafe"
)

// registryHandle and discovererHandle let the pure-Go files hold C handles without importing C.
type (
	registryHandle   = *C.tr_registry
	discovererHandle = *C.tr_discoverer
)

// Version is the version of the linked C library, e.g. "0.1.0".
func Version() string { return C.GoString(C.tr_version()) }

// String is the C name of the status, e.g. "TR_STATUS_NOT_FOUND".
func (c Code) String() string { return C.GoString(C.tr_status_name(C.int32_t(c))) }

// cText turns a name or query into a NUL-terminated buffer in Go memory (which cgo pins for the
// duration of the call). A NUL inside would silently cut the string short on the C side.
func cText(what, s string) ([]byte, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s contains a NUL byte at offset %d", what, i)}
	}
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b, nil
}

// cJSON is cText for JSON input; a raw NUL is never valid JSON, so it is reported as such.
func cJSON(what string, doc []byte) ([]byte, error) {
	if i := bytes.IndexByte(doc, 0); i >= 0 {
		return nil, &Error{Code: CodeInvalidJSON, Message: fmt.Sprintf("%s contains a NUL byte at offset %d", what, i)}
	}
	b := make([]byte, len(doc)+1)
	copy(b, doc)
	return b, nil
}

// ptr is the C view of a buffer from cText or cJSON; nil stays NULL ("use the defaults").
func ptr(b []byte) *C.char {
	if b == nil {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

// takeString copies a library-owned string into Go memory and frees the original.
func takeString(s *C.char) []byte {
	if s == nil {
		return nil
	}
	defer C.tr_string_free(s)
	return C.GoBytes(unsafe.Pointer(s), C.int(C.strlen(s)))
}

// check turns a status and its error message into a Go error, freeing the message.
func check(status C.tr_status, errOut *C.char) error {
	if status == C.TR_STATUS_OK {
		// The contract says err_out is untouched on success; free it anyway should that change.
		C.tr_string_free(errOut)
		return nil
	}
	return statusError(Code(status), string(takeString(errOut)))
}

func nativeRegistryNew(options []byte) (registryHandle, error) {
	var out *C.tr_registry
	var errOut *C.char
	st := C.tr_registry_new(ptr(options), &out, &errOut)
	return out, check(st, errOut)
}

func nativeRegistryFree(h registryHandle) { C.tr_registry_free(h) }

func nativeRegister(h registryHandle, tools []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_register(h, ptr(tools), &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeUnregister(h registryHandle, name []byte) error {
	var errOut *C.char
	return check(C.tr_registry_unregister(h, ptr(name), &errOut), errOut)
}

func nativeSetMetadata(h registryHandle, name, metadata []byte) error {
	var errOut *C.char
	return check(C.tr_registry_set_metadata(h, ptr(name), ptr(metadata), &errOut), errOut)
}

func nativeSetEnabled(h registryHandle, name []byte, enabled bool) error {
	var errOut *C.char
	return check(C.tr_registry_set_enabled(h, ptr(name), C.bool(enabled), &errOut), errOut)
}

func nativeSchemas(h registryHandle, options []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_get_schemas(h, ptr(options), &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeDeferredSummaries(h registryHandle) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_deferred_summaries(h, &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeEnableDiscovery(h registryHandle, options []byte) error {
	var errOut *C.char
	return check(C.tr_registry_enable_discovery(h, ptr(options), &errOut), errOut)
}

func nativeCall(h registryHandle, name, args []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_call(h, ptr(name), ptr(args), &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeDiscovererNew(h registryHandle, options []byte) (discovererHandle, error) {
	var out *C.tr_discoverer
	var errOut *C.char
	st := C.tr_discoverer_new(h, ptr(options), &out, &errOut)
	return out, check(st, errOut)
}

func nativeDiscovererFree(h discovererHandle) { C.tr_discoverer_free(h) }

func nativeDiscover(h discovererHandle, query, options []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_discoverer_discover(h, ptr(query), ptr(options), &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeExplain(h discovererHandle, query, toolName, options []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_discoverer_explain(h, ptr(query), ptr(toolName), ptr(options), &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeRebuildIndex(h discovererHandle) error {
	var errOut *C.char
	return check(C.tr_discoverer_rebuild_index(h, &errOut), errOut)
}

// nativeNullArgumentProbe makes a real C call with a NULL handle. The safe API can never do that;
// the tests use it to see TR_STATUS_NULL_ARGUMENT travel through check.
func nativeNullArgumentProbe() error {
	var errOut *C.char
	return check(C.tr_registry_unregister(nil, nil, &errOut), errOut)
}
