/*
 * toolregistry from C: register tools, list the deferred ones for a system prompt, and find one
 * by a natural-language query, as a model calling discover_tools would.
 *
 * Build against an installed toolregistry:
 *   cc discover.c $(pkg-config --cflags --libs toolregistry) -o discover
 * or in CMake: find_package(toolregistry CONFIG REQUIRED) and link toolregistry::toolregistry.
 */
#include <stdio.h>

#include "toolregistry.h"

/* Prints the message of a failed call, frees it, and says whether the call succeeded. */
static int ok(tr_status status, char *err) {
    if (status == TR_STATUS_OK) return 1;
    fprintf(stderr, "%s: %s\n", tr_status_name(status), err ? err : "");
    tr_string_free(err);
    return 0;
}

int main(int argc, char **argv) {
    const char *query = argc > 1 ? argv[1] : "email a colleague";
    const char *tools =
        "[{\"name\": \"read_file\", \"description\": \"Read a file from disk.\","
        "  \"parameters\": {\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}}},"
        " {\"name\": \"send_email\", \"description\": \"Send an email. Supports attachments.\","
        "  \"parameters\": {\"type\": \"object\", \"properties\": {\"to\": {\"type\": \"string\"}}},"
        "  \"metadata\": {\"defer\": true, \"tags\": [\"network\"]}},"
        " {\"name\": \"convert_currency\", \"description\": \"Convert an amount between currencies.\","
        "  \"metadata\": {\"defer\": true}}]";
    tr_registry *registry = NULL;
    char *err = NULL, *names = NULL, *summaries = NULL, *hits = NULL;
    int exit_code = 1;

    if (!ok(tr_registry_new("{\"discovery\": {}}", &registry, &err), err)) return 1;
    if (!ok(tr_registry_register(registry, tools, &names, &err), err)) goto done;
    printf("registered: %s\n", names);

    /* One line per deferred tool, for the system prompt. */
    if (!ok(tr_registry_deferred_summaries(registry, &summaries, &err), err)) goto done;
    printf("deferred:   %s\n", summaries);

    /* The model's tool call: discover_tools with a query. */
    char args[512];
    snprintf(args, sizeof args, "{\"query\": \"%s\", \"top_k\": 3}", query); /* no quotes in query, please */
    if (!ok(tr_registry_call(registry, "discover_tools", args, &hits, &err), err)) goto done;
    printf("hits:       %s\n", hits);
    exit_code = 0;

done:
    tr_string_free(names); /* every returned string, exactly once; NULL is fine */
    tr_string_free(summaries);
    tr_string_free(hits);
    tr_registry_free(registry);
    return exit_code;
}
