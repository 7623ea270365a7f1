/*
 * Every error status the C ABI can produce from C, each with its one-line message; output
 * parameters untouched on failure; the registry unchanged afterwards; err_out may be NULL.
 *
 * TR_STATUS_INTERNAL (a lock poisoned by a panic) and TR_STATUS_PANIC cannot be provoked through
 * the public functions; the Rust FFI tests reach them from inside the crate. Here only their
 * names are checked.
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "toolregistry.h"

/* Any non-NULL pointer that the library must not write over on failure. */
static char sentinel_byte;
#define SENTINEL ((char *)&sentinel_byte)

/* True when `needle` is NULL or occurs in `message`. */
static int mentions(const char *message, const char *needle) {
    return needle == NULL || (message != NULL && strstr(message, needle) != NULL);
}

/*
 * Checks a failed call: the status, and a non-empty one-line message that mentions `needle`
 * (when given). `call` uses `err` as its err_out.
 */
#define EXPECT_ERR(expected, needle, call)                                                       \
    do {                                                                                         \
        char *err = NULL;                                                                        \
        tr_status st_ = (call);                                                                  \
        CHECK_MSG(st_ == (expected), "%s: got %s (%s), want %s", #call, tr_status_name(st_),     \
                  err ? err : "no message", tr_status_name(expected));                           \
        CHECK_MSG(err != NULL && err[0] != '\0' && strchr(err, '\n') == NULL,                    \
                  "%s: message must be one non-empty line", #call);                              \
        CHECK_MSG(mentions(err, (needle)), "%s: message \"%s\" lacks \"%s\"", #call,              \
                  err ? err : "", (needle) ? (const char *)(needle) : "");                        \
        tr_string_free(err);                                                                     \
    } while (0)

static char *schemas_of(const tr_registry *r) {
    char *out = NULL;
    OK(tr_registry_get_schemas(r, NULL, &out, &err));
    return out;
}

static char *summaries_of(const tr_registry *r) {
    char *out = NULL;
    OK(tr_registry_deferred_summaries(r, &out, &err));
    return out;
}

static void test_null_arguments(tr_registry *r, tr_discoverer *d) {
    char *out = SENTINEL;
    tr_registry *rout = (tr_registry *)SENTINEL;
    tr_discoverer *dout = (tr_discoverer *)SENTINEL;
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "out", tr_registry_new(NULL, NULL, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_register(NULL, "{\"name\": \"x\"}", &out, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_register(r, NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_register(r, "{\"name\": \"x\"}", NULL, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_unregister(NULL, "a", &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_unregister(r, NULL, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_set_metadata(r, NULL, "{}", &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_set_metadata(r, "read_file", NULL, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_set_enabled(NULL, "read_file", false, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_set_enabled(r, NULL, false, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_get_schemas(NULL, NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_get_schemas(r, NULL, NULL, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_deferred_summaries(NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_deferred_summaries(r, NULL, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_enable_discovery(NULL, NULL, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_call(NULL, "discover_tools", "{}", &out, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_call(r, NULL, "{}", &out, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_call(r, "discover_tools", NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_call(r, "discover_tools", "{\"query\": \"x\"}", NULL, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_discoverer_new(NULL, NULL, &dout, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_discoverer_new(r, NULL, NULL, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_discoverer_discover(NULL, "file", NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_discoverer_discover(d, NULL, NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_discoverer_discover(d, "file", NULL, NULL, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_discoverer_rebuild_index(NULL, &err));
    CHECK(out == SENTINEL && rout == (tr_registry *)SENTINEL && dout == (tr_discoverer *)SENTINEL);
}

static void test_invalid_utf8(tr_registry *r, tr_discoverer *d) {
    char *out = SENTINEL;
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, NULL, tr_registry_register(r, "{\"name\": \"bad\xff\"}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, NULL, tr_registry_unregister(r, "read\xc3", &err));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, NULL, tr_discoverer_discover(d, "file \xfe\xff", NULL, &out, &err));
    tr_registry *rout = (tr_registry *)SENTINEL;
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, NULL, tr_registry_new("{\"\xe2\x82\": 1}", &rout, &err));
    CHECK(out == SENTINEL && rout == (tr_registry *)SENTINEL);
}

static void test_invalid_json(tr_registry *r, tr_discoverer *d) {
    char *out = SENTINEL;
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_registry_register(r, "{\"name\": \"x\",", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_registry_register(r, "", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_registry_set_metadata(r, "read_file", "{defer: true}", &err));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_registry_get_schemas(r, "[", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_registry_call(r, "discover_tools", "{\"query\"}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_discoverer_discover(d, "file", "{", &out, &err));

    /* Nested deeper than TR_MAX_JSON_DEPTH. */
    size_t depth = TR_MAX_JSON_DEPTH + 10;
    char *deep = malloc(2 * depth + 64);
    strcpy(deep, "{\"name\": \"deep\", \"parameters\": ");
    size_t n = strlen(deep);
    for (size_t i = 0; i < depth; i++) deep[n++] = '[';
    for (size_t i = 0; i < depth; i++) deep[n++] = ']';
    deep[n++] = '}';
    deep[n] = '\0';
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_registry_register(r, deep, &out, &err));
    free(deep);
    CHECK(out == SENTINEL);
}

static void test_invalid_argument(tr_registry *r, tr_discoverer *d) {
    char *out = SENTINEL;
    tr_discoverer *dout = (tr_discoverer *)SENTINEL;
    /* Tools: no name, empty name, whitespace in a name, wrong types; an array is all or nothing. */
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "name", tr_registry_register(r, "{\"description\": \"nameless\"}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "name", tr_registry_register(r, "{\"name\": \"\"}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "name", tr_registry_register(r, "{\"name\": \"two words\"}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "name", tr_registry_register(r, "{\"name\": 42}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "description", tr_registry_register(r, "{\"name\": \"x\", \"description\": 1}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "tools[1]",
               tr_registry_register(r, "[{\"name\": \"fine_tool\"}, {\"name\": \"\"}]", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_registry_register(r, "{\"name\": \"discover_tools\"}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "defer",
               tr_registry_set_metadata(r, "read_file", "{\"defer\": \"yes\"}", &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_registry_set_metadata(r, "read_file", "{\"colour\": 1}", &err));
    /* Options: unknown keys, out-of-range ratios, bad formats. */
    tr_registry *rout = (tr_registry *)SENTINEL;
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_registry_new("{\"bogus\": 1}", &rout, &err));
    CHECK(rout == (tr_registry *)SENTINEL);
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "min_score_ratio",
               tr_discoverer_new(r, "{\"min_score_ratio\": 1.5}", &dout, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "max_df_ratio",
               tr_registry_enable_discovery(r, "{\"max_df_ratio\": -0.1}", &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL,
               tr_discoverer_new(r, "{\"field_weights\": {\"colour\": 1.0}}", &dout, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "api_format",
               tr_registry_get_schemas(r, "{\"api_format\": \"smoke-signals\"}", &out, &err));
    /* Queries: empty, whitespace-only, top_k 0. */
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_discoverer_discover(d, "", NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_discoverer_discover(d, " \t\n", NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "top_k", tr_discoverer_discover(d, "file", "{\"top_k\": 0}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_registry_call(r, "discover_tools", "{\"query\": \"  \"}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_registry_call(r, "discover_tools", "{\"query\": 7}", &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "top_k",
               tr_registry_call(r, "discover_tools", "{\"query\": \"file\", \"top_k\": 0}", &out, &err));
    /* A registered tool is run by the host, not by the library. */
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_registry_call(r, "read_file", "{}", &out, &err));
    CHECK(out == SENTINEL && dout == (tr_discoverer *)SENTINEL);
}

static void test_not_found(tr_registry *r) {
    char *out = SENTINEL;
    EXPECT_ERR(TR_STATUS_NOT_FOUND, "no_such_tool", tr_registry_unregister(r, "no_such_tool", &err));
    EXPECT_ERR(TR_STATUS_NOT_FOUND, "no_such_tool", tr_registry_set_enabled(r, "no_such_tool", true, &err));
    EXPECT_ERR(TR_STATUS_NOT_FOUND, "no_such_tool", tr_registry_set_metadata(r, "no_such_tool", "{}", &err));
    EXPECT_ERR(TR_STATUS_NOT_FOUND, NULL, tr_registry_call(r, "no_such_builtin", "{}", &out, &err));
    CHECK(out == SENTINEL);
}

static void test_explain_errors(tr_discoverer *d) {
    char *out = SENTINEL;
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_discoverer_explain(NULL, "file", "read_file", NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_discoverer_explain(d, "file", NULL, NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_NOT_FOUND, "no_such_tool", tr_discoverer_explain(d, "file", "no_such_tool", NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_discoverer_explain(d, " ", "read_file", NULL, &out, &err));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "top_k", tr_discoverer_explain(d, "file", "read_file", "{\"top_k\": 0}", &out, &err));
    CHECK(out == SENTINEL);
}

static void test_not_found_before_discovery(void) {
    tr_registry *r = NULL;
    char *out = SENTINEL;
    OK(tr_registry_new(NULL, &r, &err));
    EXPECT_ERR(TR_STATUS_NOT_FOUND, "discover_tools",
               tr_registry_call(r, "discover_tools", "{\"query\": \"file\"}", &out, &err));
    CHECK(out == SENTINEL);
    tr_registry_free(r);
}

static void test_too_large(tr_registry *r, tr_discoverer *d) {
    char *out = SENTINEL;
    /* 65 MiB of JSON: a valid string literal, so only the size is wrong. */
    size_t big = 65u * 1024u * 1024u;
    char *json = malloc(big + 1);
    memset(json, 'a', big);
    json[0] = '"';
    json[big - 1] = '"';
    json[big] = '\0';
    EXPECT_ERR(TR_STATUS_TOO_LARGE, NULL, tr_registry_register(r, json, &out, &err));
    free(json);

    /* A name over 1 KiB, a query over 64 KiB. */
    char *name_json = malloc(TR_MAX_NAME_BYTES + 64);
    strcpy(name_json, "{\"name\": \"");
    size_t n = strlen(name_json);
    memset(name_json + n, 'n', TR_MAX_NAME_BYTES + 1);
    strcpy(name_json + n + TR_MAX_NAME_BYTES + 1, "\"}");
    EXPECT_ERR(TR_STATUS_TOO_LARGE, NULL, tr_registry_register(r, name_json, &out, &err));
    free(name_json);

    char *query = malloc(TR_MAX_QUERY_BYTES + 2);
    memset(query, 'q', TR_MAX_QUERY_BYTES + 1);
    query[TR_MAX_QUERY_BYTES + 1] = '\0';
    EXPECT_ERR(TR_STATUS_TOO_LARGE, NULL, tr_discoverer_discover(d, query, NULL, &out, &err));
    for (size_t i = 0; i < 2 * (TR_MAX_QUERY_TOKENS + 1); i += 2) {
        query[i] = 'w';
        query[i + 1] = ' ';
    }
    query[2 * (TR_MAX_QUERY_TOKENS + 1)] = '\0';
    /* More than TR_MAX_QUERY_TOKENS tokens within 64 KiB: answered from the first ones. */
    char *answer = NULL;
    CHECK(tr_discoverer_discover(d, query, NULL, &answer, NULL) == TR_STATUS_OK);
    CHECK(answer != NULL && answer[0] == '[');
    tr_string_free(answer);
    free(query);
    CHECK(out == SENTINEL);
}

/* A NULL err_out is allowed: the status still comes back and nothing leaks. */
static void test_null_err_out(tr_registry *r) {
    CHECK(tr_registry_unregister(r, "no_such_tool", NULL) == TR_STATUS_NOT_FOUND);
    char *out = SENTINEL;
    CHECK(tr_registry_register(r, "{", &out, NULL) == TR_STATUS_INVALID_JSON);
    CHECK(out == SENTINEL);
}

int main(void) {
    static const char *const names[] = {
        "TR_STATUS_OK", "TR_STATUS_NULL_ARGUMENT", "TR_STATUS_INVALID_UTF8", "TR_STATUS_INVALID_JSON",
        "TR_STATUS_INVALID_ARGUMENT", "TR_STATUS_NOT_FOUND", "TR_STATUS_TOO_LARGE", "TR_STATUS_INTERNAL",
        "TR_STATUS_PANIC"};
    for (int s = 0; s <= TR_STATUS_PANIC; s++) CHECK_STR_EQ(tr_status_name(s), names[s]);
    CHECK_STR_EQ(tr_status_name(-1), "TR_STATUS_UNKNOWN");

    tr_registry *r = NULL;
    tr_discoverer *d = NULL;
    char *names_out = NULL;
    OK(tr_registry_new(NULL, &r, &err));
    OK(tr_registry_register(r,
                            "[{\"name\": \"read_file\", \"description\": \"Read a file.\"},"
                            " {\"name\": \"send_email\", \"description\": \"Send an email.\", \"metadata\": {\"defer\": true}}]",
                            &names_out, &err));
    tr_string_free(names_out);
    OK(tr_registry_enable_discovery(r, NULL, &err));
    OK(tr_discoverer_new(r, NULL, &d, &err));

    char *schemas_before = schemas_of(r), *summaries_before = summaries_of(r);
    test_null_arguments(r, d);
    test_invalid_utf8(r, d);
    test_invalid_json(r, d);
    test_invalid_argument(r, d);
    test_not_found(r);
    test_explain_errors(d);
    test_not_found_before_discovery();
    test_too_large(r, d);
    test_null_err_out(r);

    /* No failed call changed anything. */
    char *schemas_after = schemas_of(r), *summaries_after = summaries_of(r);
    CHECK_STR_EQ(schemas_before, schemas_after);
    CHECK_STR_EQ(summaries_before, summaries_after);
    tr_string_free(schemas_before);
    tr_string_free(schemas_after);
    tr_string_free(summaries_before);
    tr_string_free(summaries_after);

    tr_discoverer_free(d);
    tr_registry_free(r);
    return test_exit_code("test_errors");
}
