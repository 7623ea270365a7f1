/* Runs the tool-call conformance corpus through the C ABI and prints, for every case sorted by
 * provider/case, one line: "<provider>/<case>\t<messages JSON exactly as returned>".
 * Usage: execute_c CORPUS_DIR [--steps] (tests/conformance/execute; --steps: through
 * tr_registry_prepare_calls, the host's own run, tr_registry_finish_calls)
 * Part of the cross-language comparison (scripts/cross_language.py); the registry and the
 * scripted hosts come from tests/c/corpus.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "toolregistry.h"

int main(int argc, char **argv) {
    int steps = argc == 3 && strcmp(argv[2], "--steps") == 0;
    if (argc != 2 && !steps) {
        fprintf(stderr, "usage: execute_c CORPUS_DIR [--steps]\n");
        return 2;
    }
    tr_registry *r = corpus_registry(argv[1]);
    if (!r) return 1;
    corpus_case *cases = NULL;
    size_t count = corpus_cases(argv[1], &cases);
    int rc = count == 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        char *messages = NULL, *err = NULL;
        tr_status st = steps ? corpus_execute_steps(r, &cases[i], &messages, &err)
                             : corpus_execute(r, &cases[i], &messages, &err);
        if (st == TR_STATUS_OK) {
            printf("%s\t%s\n", cases[i].name, messages);
        } else {
            fprintf(stderr, "execute_c: %s: %s: %s\n", cases[i].name, tr_status_name(st), err ? err : "");
            rc = 1;
        }
        tr_string_free(messages);
        tr_string_free(err);
    }
    corpus_cases_free(cases, count);
    tr_registry_free(r);
    return rc;
}
