/* Answers one query over a catalog through the C ABI and prints the library's JSON answer.
 * Usage: discover_c CATALOG.json QUERY TOP_K [PROFILE]
 * Part of the cross-language comparison (scripts/cross_language.py). */
#include <stdio.h>
#include <stdlib.h>
#include "toolregistry.h"

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

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: discover_c CATALOG.json QUERY TOP_K [PROFILE]\n"); return 2; }
    char *catalog = read_file(argv[1]);
    if (!catalog) { fprintf(stderr, "discover_c: cannot read %s\n", argv[1]); return 1; }
    tr_registry *reg = NULL;
    tr_discoverer *d = NULL;
    char *err = NULL, *names = NULL, *answer = NULL;
    char options[128], discover_options[64];
    snprintf(options, sizeof options, "{\"profile\": \"%s\"}", argc > 4 ? argv[4] : "reference");
    snprintf(discover_options, sizeof discover_options, "{\"top_k\": %s}", argv[3]);
    int rc = 0;
    if (tr_registry_new(NULL, &reg, &err) != TR_STATUS_OK) rc = fail("registry", err);
    else if (tr_registry_register(reg, catalog, &names, &err) != TR_STATUS_OK) rc = fail("register", err);
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
