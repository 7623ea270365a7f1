/* Answers one query over a catalog through the C ABI and prints the library's JSON answer.
 * Usage: discover_c CATALOG.json QUERY TOP_K [PROFILE [USAGE]]
 * With PROFILE "hybrid" the registry gets the fake embedder every language implements alike (dim
 * 64; words split on non-alphanumeric ASCII, lowercased, FNV-1a 32-bit, 1.0 at hash % 64; all
 * zeros -> [1, 0, ...]) and waits for the catalog's vectors first. USAGE holds tasks recorded before
 * the query, one JSON array of tool names a line (tr_registry_record_usage).
 * Part of the cross-language comparison (scripts/cross_language.py). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "toolregistry.h"

static int32_t fake_embed(void *user_data, const char *const *texts, size_t count, float *vectors, size_t dim,
                          char *error, size_t error_cap) {
    (void)user_data;
    (void)error;
    (void)error_cap;
    for (size_t t = 0; t < count; t++) {
        float *v = vectors + t * dim;
        memset(v, 0, dim * sizeof *v);
        uint32_t h = 0x811c9dc5u;
        int in_word = 0, any = 0;
        for (const unsigned char *p = (const unsigned char *)texts[t];; p++) {
            if (*p && *p < 128 && isalnum(*p)) {
                h = (h ^ (uint32_t)tolower(*p)) * 0x01000193u;
                in_word = 1;
                continue;
            }
            if (in_word) {
                v[h % dim] += 1.0f;
                any = 1;
                in_word = 0;
                h = 0x811c9dc5u;
            }
            if (!*p) break;
        }
        if (!any) v[0] = 1.0f;
    }
    return 0;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) { free(buf); buf = NULL; }
    if (buf) buf[size] = '\0';
    fclose(f);
    return buf;
}

static int fail(const char *what, char *err) {
    fprintf(stderr, "discover_c: %s: %s\n", what, err ? err : "(no message)");
    tr_string_free(err);
    return 1;
}

/* Records each line of `tasks` (a JSON array of names) as one task. */
static int record_tasks(tr_registry *reg, const char *tasks) {
    while (*tasks) {
        const char *end = strchr(tasks, '\n');
        size_t len = end ? (size_t)(end - tasks) : strlen(tasks);
        char *line = malloc(len + 1);
        char *err = NULL;
        if (!line) return 1;
        memcpy(line, tasks, len);
        line[len] = '\0';
        if (len > 0 && tr_registry_record_usage(reg, line, NULL, &err) != TR_STATUS_OK) {
            free(line);
            return fail("record_usage", err);
        }
        free(line);
        tasks += len + (end ? 1 : 0);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: discover_c CATALOG.json QUERY TOP_K [PROFILE [USAGE]]\n"); return 2; }
    char *catalog = read_file(argv[1]);
    if (!catalog) { fprintf(stderr, "discover_c: cannot read %s\n", argv[1]); return 1; }
    tr_registry *reg = NULL;
    tr_discoverer *d = NULL;
    char *err = NULL, *names = NULL, *answer = NULL;
    char options[128], discover_options[64];
    snprintf(options, sizeof options, "{\"profile\": \"%s\"}", argc > 4 ? argv[4] : "reference");
    snprintf(discover_options, sizeof discover_options, "{\"top_k\": %s}", argv[3]);
    int rc = 0;
    int hybrid = argc > 4 && strcmp(argv[4], "hybrid") == 0;
    bool done = false;
    if (tr_registry_new(NULL, &reg, &err) != TR_STATUS_OK) rc = fail("registry", err);
    else if (tr_registry_register(reg, catalog, &names, &err) != TR_STATUS_OK) rc = fail("register", err);
    else if (hybrid && tr_registry_set_embedder(reg, "{\"dim\": 64}", fake_embed, NULL, NULL, &err) != TR_STATUS_OK)
        rc = fail("set_embedder", err);
    else if (hybrid && (tr_registry_wait_embeddings(reg, 120000, &done, &err) != TR_STATUS_OK || !done))
        rc = fail("wait_embeddings", err);
    else if (argc > 5 && record_tasks(reg, argv[5]) != 0) rc = 1;
    else if (tr_discoverer_new(reg, options, &d, &err) != TR_STATUS_OK) rc = fail("discoverer", err);
    else if (tr_discoverer_discover(d, argv[2], discover_options, &answer, &err) != TR_STATUS_OK) rc = fail("discover", err);
    else printf("%s\n", answer);
    tr_string_free(names);
    tr_string_free(answer);
    tr_discoverer_free(d);
    tr_registry_free(reg);
    free(catalog);
    return rc;
}
