/*
 * The tool-call conformance corpus (tests/conformance/execute/) through the C ABI from C99: the
 * fixture's registry built with C host functions, every case's messages equal to expected.json
 * byte for byte, sequentially and with {"parallel": 4} (results keep call order), and each host's
 * user data freed exactly once when the registry is freed.
 * Usage: test_conformance CORPUS_DIR
 */
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "json.h"
#include "test_util.h"
#include "toolregistry.h"

/* options.json with "parallel": 4 added (the case's own options kept). */
static tr_status execute_parallel(tr_registry *r, const corpus_case *c, char **out, char **err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/calls.json", c->dir);
    char *calls = read_file(path);
    snprintf(path, sizeof path, "%s/options.json", c->dir);
    char *options_text = read_file(path);
    strbuf options;
    sb_init(&options);
    if (options_text) {
        /* The corpus's options are one flat object: splice the key in after its brace. */
        const char *rest = strchr(options_text, '{');
        rest = rest ? rest + 1 : "}";
        while (*rest == ' ' || *rest == '\n' || *rest == '\r' || *rest == '\t') rest++;
        sb_puts(&options, *rest == '}' ? "{\"parallel\": 4" : "{\"parallel\": 4, ");
        sb_puts(&options, rest);
    } else {
        sb_puts(&options, "{\"parallel\": 4}");
    }
    tr_status st = calls ? tr_registry_execute(r, calls, options.data, out, err) : TR_STATUS_NOT_FOUND;
    free(calls);
    free(options_text);
    sb_free(&options);
    return st;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_conformance CORPUS_DIR\n");
        return 2;
    }
    tr_registry *r = corpus_registry(argv[1]);
    CHECK(r != NULL);
    if (!r) return test_exit_code("test_conformance");
    corpus_case *cases = NULL;
    size_t count = corpus_cases(argv[1], &cases);
    CHECK_MSG(count >= 50, "the corpus has %zu cases", count);
    for (size_t i = 0; i < count; i++) {
        char *want = corpus_expected(&cases[i]);
        CHECK_MSG(want != NULL, "%s: no expected.json", cases[i].name);
        /* 0: execute, 1: execute with parallel 4, 2: prepare, the host's own run, finish. */
        for (int way = 0; way <= 2; way++) {
            char *got = NULL, *err = NULL;
            tr_status st = way == 1   ? execute_parallel(r, &cases[i], &got, &err)
                           : way == 2 ? corpus_execute_steps(r, &cases[i], &got, &err)
                                      : corpus_execute(r, &cases[i], &got, &err);
            static const char *ways[] = {"", " (parallel 4)", " (prepare and finish)"};
            CHECK_MSG(st == TR_STATUS_OK, "%s: %s: %s", cases[i].name, tr_status_name(st), err ? err : "");
            CHECK_MSG(got && want && strcmp(got, want) == 0, "%s%s\n  want %s\n  got  %s", cases[i].name,
                      ways[way], want ? want : "(none)", got ? got : "(none)");
            tr_string_free(got);
            tr_string_free(err);
        }
        free(want);
    }
    corpus_cases_free(cases, count);
    CHECK(corpus_host_registrations() == 5);
    CHECK_MSG(corpus_host_frees() == 0, "%d host data freed while the registry lives", corpus_host_frees());
    tr_registry_free(r);
    CHECK_MSG(corpus_host_frees() == corpus_host_registrations(), "%d of %d host data freed",
              corpus_host_frees(), corpus_host_registrations());
    return test_exit_code("test_conformance");
}
