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

// The exported Go functions below (their prototypes, as cgo writes them, have no const).
extern void trGoHostCall(void *user_data, char *tool_name, char *args_json, tr_call *call);
extern void trGoHostRelease(void *user_data);
extern int32_t trGoEmbed(void *user_data, char **texts, size_t count, float *vectors, size_t dim, char *error, size_t error_cap);
extern void trGoEmbedRelease(void *user_data);
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/cgo"
	"strings"
	"unsafe"
)

// registryHandle and discovererHandle let the pure-Go files hold C handles without importing C.
type (
	registryHandle     = *C.tr_registry
	discovererHandle   = *C.tr_discoverer
	conversationHandle = *C.tr_conversation
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

// Host functions. The C side gets, as user data, a malloc'd cell holding a cgo.Handle to a
// *hostFunc (a Go pointer may not be kept by C, and a handle is an integer that must not pose as
// a pointer). trGoHostCall runs a call through it; trGoHostRelease, which the library calls
// exactly once per registration attempt, deletes the handle and frees the cell.

// hostFunctionPointers are the C views of the two exported functions. cgo declares exported
// functions with `char *` where tr_tool_fn has `const char *`; the types differ only in that
// qualifier, which changes neither representation nor calling convention.
var (
	hostCallFn    = C.tr_tool_fn(C.trGoHostCall)
	hostReleaseFn = C.tr_free_fn(C.trGoHostRelease)
)

// newHostUserData hands f to C: a handle in a C cell, counted until trGoHostRelease.
func newHostUserData(f *hostFunc) unsafe.Pointer {
	cell := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	if cell == nil {
		panic("toolregistry: out of C memory")
	}
	*(*C.uintptr_t)(cell) = C.uintptr_t(cgo.NewHandle(f))
	f.counter.created.Add(1)
	return cell
}

func hostFromUserData(cell unsafe.Pointer) (cgo.Handle, *hostFunc) {
	h := cgo.Handle(*(*C.uintptr_t)(cell))
	return h, h.Value().(*hostFunc)
}

//export trGoHostCall
func trGoHostCall(userData unsafe.Pointer, toolName *C.char, argsJSON *C.char, call *C.tr_call) {
	_, f := hostFromUserData(userData)
	name := C.GoString(toolName)
	args := json.RawMessage(C.GoBytes(unsafe.Pointer(argsJSON), C.int(C.strlen(argsJSON))))
	out := f.run(context.Background(), name, args).checkNUL(name)
	// The library copies the text. A NUL would cut a message short, so it is spelled out.
	if out.failed {
		msg := append([]byte(strings.ReplaceAll(out.failure, "\x00", `\x00`)), 0)
		C.tr_call_fail(call, (*C.char)(unsafe.Pointer(&msg[0])))
		return
	}
	content := append([]byte(out.content), 0)
	C.tr_call_return(call, (*C.char)(unsafe.Pointer(&content[0])))
}

//export trGoHostRelease
func trGoHostRelease(userData unsafe.Pointer) {
	h, f := hostFromUserData(userData)
	h.Delete()
	C.free(userData)
	f.counter.forget(f)
	f.counter.released.Add(1)
}

func nativeRegisterCallable(h registryHandle, tool []byte, f *hostFunc) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_register_callable(h, ptr(tool), hostCallFn, newHostUserData(f), hostReleaseFn, &out, &errOut)
	return takeString(out), check(st, errOut)
}

// nativeSetFallback installs f, or removes the fallback when f is nil.
func nativeSetFallback(h registryHandle, f *hostFunc) error {
	var errOut *C.char
	if f == nil {
		return check(C.tr_registry_set_fallback(h, nil, nil, nil, &errOut), errOut)
	}
	return check(C.tr_registry_set_fallback(h, hostCallFn, newHostUserData(f), hostReleaseFn, &errOut), errOut)
}

func nativeExecute(h registryHandle, calls, options []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_execute(h, ptr(calls), ptr(options), &out, &errOut)
	return takeString(out), check(st, errOut)
}

// nativeDisable disables name; a nil reason is NULL (no reason).
func nativeDisable(h registryHandle, name, reason []byte) error {
	var errOut *C.char
	return check(C.tr_registry_disable(h, ptr(name), ptr(reason), &errOut), errOut)
}

func nativeToolsStatus(h registryHandle) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_tools_status(h, &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeConversationNew(h registryHandle, options []byte) (conversationHandle, error) {
	var out *C.tr_conversation
	var errOut *C.char
	st := C.tr_conversation_new(h, ptr(options), &out, &errOut)
	return out, check(st, errOut)
}

func nativeConversationFree(h conversationHandle) { C.tr_conversation_free(h) }

func nativeConversationTools(h conversationHandle) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_conversation_tools(h, &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeConversationExecute(h conversationHandle, calls, options []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_conversation_execute(h, ptr(calls), ptr(options), &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeConversationReveal(h conversationHandle, names []byte) error {
	var errOut *C.char
	return check(C.tr_conversation_reveal(h, ptr(names), &errOut), errOut)
}

func nativeConversationLoaded(h conversationHandle) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_conversation_loaded(h, &out, &errOut)
	return takeString(out), check(st, errOut)
}

// Host embedders: the same scheme as host functions. The user data is a C cell holding a
// cgo.Handle to an *embedder; trGoEmbedRelease, which the library calls exactly once per
// SetEmbedder attempt, deletes the handle and frees the cell.

// embedFunctionPointers: cgo declares trGoEmbed with `char **` where tr_embed_fn has
// `const char *const *`; the types differ only in qualifiers.
var (
	embedFn        = C.tr_embed_fn(C.trGoEmbed)
	embedReleaseFn = C.tr_free_fn(C.trGoEmbedRelease)
)

func newEmbedUserData(e *embedder) unsafe.Pointer {
	cell := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	if cell == nil {
		panic("toolregistry: out of C memory")
	}
	*(*C.uintptr_t)(cell) = C.uintptr_t(cgo.NewHandle(e))
	e.counter.created.Add(1)
	return cell
}

func embedderFromUserData(cell unsafe.Pointer) (cgo.Handle, *embedder) {
	h := cgo.Handle(*(*C.uintptr_t)(cell))
	return h, h.Value().(*embedder)
}

//export trGoEmbed
func trGoEmbed(userData unsafe.Pointer, texts **C.char, count C.size_t, vectors *C.float, dim C.size_t, errBuf *C.char, errCap C.size_t) C.int32_t {
	_, e := embedderFromUserData(userData)
	var err error
	if int(dim) != e.dim {
		err = fmt.Errorf("the embedder makes vectors of %d numbers, asked for %d", e.dim, int(dim))
	} else {
		batch := make([]string, int(count))
		for i, t := range unsafe.Slice(texts, int(count)) {
			batch[i] = C.GoString(t)
		}
		out := unsafe.Slice((*float32)(unsafe.Pointer(vectors)), int(count)*int(dim))
		err = e.run(batch, out)
	}
	if err == nil {
		return 0
	}
	if errCap > 0 {
		msg := strings.ReplaceAll(err.Error(), "\x00", `\x00`)
		if len(msg) > int(errCap)-1 {
			msg = msg[:int(errCap)-1]
		}
		buf := unsafe.Slice((*byte)(unsafe.Pointer(errBuf)), int(errCap))
		copy(buf, msg)
		buf[len(msg)] = 0
	}
	return 1
}

//export trGoEmbedRelease
func trGoEmbedRelease(userData unsafe.Pointer) {
	h, e := embedderFromUserData(userData)
	h.Delete()
	C.free(userData)
	e.counter.released.Add(1)
}

func nativeSetEmbedder(h registryHandle, options []byte, e *embedder) error {
	var errOut *C.char
	return check(C.tr_registry_set_embedder(h, ptr(options), embedFn, newEmbedUserData(e), embedReleaseFn, &errOut), errOut)
}

func nativeWaitEmbeddings(h registryHandle, timeoutMs uint64) (bool, error) {
	var done C.bool
	var errOut *C.char
	err := check(C.tr_registry_wait_embeddings(h, C.uint64_t(timeoutMs), &done, &errOut), errOut)
	return bool(done), err
}

func nativeEmbeddingStatus(h registryHandle) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_embedding_status(h, &out, &errOut)
	return takeString(out), check(st, errOut)
}

// Usage (co-use): turn on, record a task, save, report.

func nativeEnableUsage(h registryHandle, path []byte) error {
	var errOut *C.char
	return check(C.tr_registry_enable_usage(h, ptr(path), &errOut), errOut)
}

func nativeRecordUsage(h registryHandle, names []byte) (int, error) {
	var counted C.size_t
	var errOut *C.char
	err := check(C.tr_registry_record_usage(h, ptr(names), &counted, &errOut), errOut)
	return int(counted), err
}

func nativeSaveUsage(h registryHandle) error {
	var errOut *C.char
	return check(C.tr_registry_save_usage(h, &errOut), errOut)
}

func nativeUsageStatus(h registryHandle) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_usage_status(h, &out, &errOut)
	return takeString(out), check(st, errOut)
}

// The two-step tool loop: prepare answers a plan, the host runs its calls, finish answers the
// messages. Nothing is kept in the library between the two.

func nativePrepareCalls(h registryHandle, calls, options []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_prepare_calls(h, ptr(calls), ptr(options), &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeFinishCalls(h registryHandle, plan, results []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_finish_calls(h, ptr(plan), ptr(results), &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeConversationPrepareCalls(h conversationHandle, calls, options []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_conversation_prepare_calls(h, ptr(calls), ptr(options), &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativeConversationFinishCalls(h conversationHandle, plan, results []byte) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_conversation_finish_calls(h, ptr(plan), ptr(results), &out, &errOut)
	return takeString(out), check(st, errOut)
}

// The pull embedder: no callback, the host takes the texts and puts the vectors back.

func nativeSetPullEmbedder(h registryHandle, options []byte) error {
	var errOut *C.char
	return check(C.tr_registry_set_embedder(h, ptr(options), nil, nil, nil, &errOut), errOut)
}

func nativeTakeEmbeddingJobs(h registryHandle, max int) ([]byte, error) {
	var out, errOut *C.char
	st := C.tr_registry_take_embedding_jobs(h, C.size_t(max), &out, &errOut)
	return takeString(out), check(st, errOut)
}

func nativePutEmbeddings(h registryHandle, results []byte) error {
	var errOut *C.char
	return check(C.tr_registry_put_embeddings(h, ptr(results), &errOut), errOut)
}
