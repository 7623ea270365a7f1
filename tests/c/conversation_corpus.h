/*
 * The conversation conformance corpus (tests/conformance/conversation/) through the C ABI: one
 * directory per case with options.json (conversation options), calls.json, expected.json,
 * loaded.json and optionally tools.json (the `tools` answer afterwards), over the registry of fixture.json (built by corpus_registry from corpus.h). Shared
 * by test_conversation.c (compares) and tests/cross/conversation.c (prints). Not part of the
 * library.
 */
#ifndef TR_TEST_CONVERSATION_CORPUS_H
#define TR_TEST_CONVERSATION_CORPUS_H

#include <stddef.h>

#include "corpus.h"
#include "toolregistry.h"

/* Every case directory (one level, unlike the execute corpus), sorted by name. Returns the count;
 * free *out with corpus_cases_free. */
size_t conversation_cases(const char *corpus_dir, corpus_case **out);

/* Runs one case as tests/it/conversation.rs does: a fresh fixture registry, a conversation with the
 * case's options.json, the registry handle freed (the conversation outlives it), calls.json
 * executed with no execute options, then `loaded` and (when tools_out is not NULL) `tools`. On
 * TR_STATUS_OK *messages_out, *loaded_out and *tools_out receive library strings
 * (tr_string_free). TR_STATUS_NOT_FOUND without a message when a file of the case is unreadable
 * or the fixture cannot be built (printed to stderr instead). */
tr_status conversation_run_case(const char *corpus_dir, const corpus_case *c, char **messages_out, char **loaded_out,
                                char **tools_out, char **err_out);
/* conversation_run_case with `steps` non-zero: tr_conversation_prepare_calls, each host call run by
 * the fixture's scripted host (corpus_host_results), then tr_conversation_finish_calls. */
tr_status conversation_run_case_with(const char *corpus_dir, const corpus_case *c, int steps, char **messages_out,
                                     char **loaded_out, char **tools_out, char **err_out);

/* A file of the case without its final newline (malloc'd, free()); NULL if unreadable. */
char *conversation_case_file(const corpus_case *c, const char *file);

#endif
