/* Runs the conversation conformance corpus through the C ABI and prints, for every case sorted by
 * name, one line: "<case>\t<messages JSON exactly as returned>\t<loaded JSON exactly as returned>".
 * Usage: conversation_c CORPUS_DIR [--steps] (tests/conformance/conversation; --steps: through
 * tr_conversation_prepare_calls, the scripted hosts, tr_conversation_finish_calls)
 * Each case as in tests/it/conversation.rs: a fresh fixture registry (tests/c/corpus.c, echo hosts),
 * a conversation with the case's options.json that outlives the registry handle, calls.json
 * executed, then loaded (tests/c/conversation_corpus.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversation_corpus.h"
#include "toolregistry.h"

int main(int argc, char **argv) {
    int steps = argc == 3 && strcmp(argv[2], "--steps") == 0;
    if (argc != 2 && !steps) {
        fprintf(stderr, "usage: conversation_c CORPUS_DIR [--steps]\n");
        return 2;
    }
    corpus_case *cases = NULL;
    size_t count = conversation_cases(argv[1], &cases);
    int rc = count == 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        char *messages = NULL, *loaded = NULL, *err = NULL;
        tr_status st = conversation_run_case_with(argv[1], &cases[i], steps, &messages, &loaded, NULL, &err);
        if (st == TR_STATUS_OK) {
            printf("%s\t%s\t%s\n", cases[i].name, messages, loaded);
        } else {
            fprintf(stderr, "conversation_c: %s: %s: %s\n", cases[i].name, tr_status_name(st), err ? err : "");
            rc = 1;
        }
        tr_string_free(messages);
        tr_string_free(loaded);
        tr_string_free(err);
    }
    corpus_cases_free(cases, count);
    return rc;
}
