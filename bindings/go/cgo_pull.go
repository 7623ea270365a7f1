//go:build toolregistry_pull

package toolregistry

// The pull embedder's C calls, apart from cgo.go until the library exports them on main: build
// with -tags toolregistry_pull against a library that has tr_registry_take_embedding_jobs.

/*
#include <stdlib.h>
#include "toolregistry.h"
*/
import "C"

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
