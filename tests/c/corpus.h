/*
 * The tool-call conformance corpus (tests/conformance/execute/) through the C ABI: builds the
 * fixture's registry with scripted C host functions and lists the cases. Shared by
 * test_conformance.c (compares with expected.json) and tests/cross/execute.c (prints the answers
 * for the cross-language check). Not part of the library.
 */
#ifndef TR_TEST_CORPUS_H
#define TR_TEST_CORPUS_H

#include <stddef.h>

#include "toolregistry.h"

/* One case: "provider/case" and its directory. */
typedef struct {
    char *name;
    char *dir;
} corpus_case;

/* The fixture's registry: every tool registered (echo, fail and panic hosts through
 * tr_registry_register_callable, "null" ones with tr_registry_register), the disabled tools
 * disabled with their reasons, discovery enabled with the fixture's options. NULL on failure,
 * with a message printed to stderr. */
tr_registry *corpus_registry(const char *corpus_dir);

/* How many scripted hosts' user data have been freed so far (each registration's once). */
int corpus_host_frees(void);
/* How many scripted hosts were registered. */
int corpus_host_registrations(void);

/* Every case directory, sorted by name. Returns the count; *out is freed with corpus_cases_free. */
size_t corpus_cases(const char *corpus_dir, corpus_case **out);
void corpus_cases_free(corpus_case *cases, size_t count);

/* Runs one case (its calls.json with its options.json, if any): the status and outputs of
 * tr_registry_execute, or TR_STATUS_NOT_FOUND without a message (printed to stderr instead) when
 * calls.json is unreadable. */
tr_status corpus_execute(tr_registry *r, const corpus_case *c, char **messages_out, char **err_out);

/* The same through the two steps: tr_registry_prepare_calls, each host call of the plan answered
 * by the scripted host of its tool (by name; `unhandled` for a tool without one), then
 * tr_registry_finish_calls. */
tr_status corpus_execute_steps(tr_registry *r, const corpus_case *c, char **messages_out, char **err_out);

/* The results array a host that runs a plan's calls itself gives tr_*_finish_calls: each host call
 * of `plan` answered by the scripted host of its tool (registered by corpus_registry), `unhandled`
 * for a tool without one; last to first. Free with free(). */
char *corpus_host_results(const char *plan);

/* The case's expected.json without its final newline (malloc'd, free()); NULL if unreadable. */
char *corpus_expected(const corpus_case *c);

#endif
