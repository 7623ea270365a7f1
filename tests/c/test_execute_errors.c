/*
 * The error table of the tool-call exports from C99: tr_call_return, tr_call_fail,
 * tr_registry_register_callable, tr_registry_set_fallback, tr_registry_execute,
 * tr_registry_disable, tr_registry_tools_status and tr_registry_get_schemas with names. A NULL for
 * each pointer argument, invalid UTF-8, malformed calls JSON, JSON that is no provider's call list,
 * bad options: each is its status with a one-line message naming what was wrong, outputs untouched,
 * the registry unchanged, err_out NULL accepted.
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "toolregistry.h"

static char sentinel_byte;
#define SENTINEL ((char *)&sentinel_byte)

static int mentions(const char *message, const char *needle) {
    return needle == NULL || (message != NULL && strstr(message, needle) != NULL);
}

/* As in test_errors.c: the status, and one non-empty line that mentions `needle`. Then the same
 * call again with err_out NULL must give the same status. */
#define EXPECT_ERR(expected, needle, call_with_err, call_without_err)                              \
    do {                                                                                            \
        char *err = NULL;                                                                           \
        tr_status st_ = (call_with_err);                                                            \
        CHECK_MSG(st_ == (expected), "%s: got %s (%s), want %s", #call_with_err, tr_status_name(st_), \
                  err ? err : "no message", tr_status_name(expected));                              \
        CHECK_MSG(err != NULL && err[0] != '\0' && strchr(err, '\n') == NULL,                       \
                  "%s: message must be one non-empty line", #call_with_err);                        \
        CHECK_MSG(mentions(err, (needle)), "%s: message \"%s\" lacks \"%s\"", #call_with_err,        \
                  err ? err : "", (needle) ? (const char *)(needle) : "");                           \
        tr_string_free(err);                                                                        \
        CHECK_MSG((call_without_err) == (expected), "%s with err_out NULL", #call_without_err);      \
    } while (0)

static int frees = 0;
static void count_free(void *user_data) {
    (void)user_data;
    frees++;
}

static void echo_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    (void)user_data;
    (void)args_json;
    tr_call_return(call, tool_name);
}

static const char *const CALLS = "[{\"id\": \"1\", \"type\": \"function\", \"function\": {\"name\": \"echo\", \"arguments\": \"{}\"}}]";

static char *snapshot(const tr_registry *r) {
    char *schemas = NULL, *status = NULL;
    OK(tr_registry_get_schemas(r, NULL, &schemas, &err));
    OK(tr_registry_tools_status(r, &status, &err));
    size_t n = (schemas ? strlen(schemas) : 0) + (status ? strlen(status) : 0) + 2;
    char *both = malloc(n);
    snprintf(both, n, "%s|%s", schemas ? schemas : "", status ? status : "");
    tr_string_free(schemas);
    tr_string_free(status);
    return both;
}

/* The answer functions take no err_out; outside a callback only NULL can be passed. (Answering
 * twice, invalid UTF-8 and NULL text inside a callback are in test_execute.c.) */
static void test_call_answers(void) {
    CHECK(tr_call_return(NULL, "x") == TR_STATUS_NULL_ARGUMENT);
    CHECK(tr_call_fail(NULL, "x") == TR_STATUS_NULL_ARGUMENT);
    CHECK(tr_call_return(NULL, NULL) == TR_STATUS_NULL_ARGUMENT);
    CHECK(tr_call_fail(NULL, NULL) == TR_STATUS_NULL_ARGUMENT);
}

static void test_register_callable(tr_registry *r) {
    char *out = SENTINEL;
    int unused = 0;
    void *data = &unused;
    /* A name one byte over TR_MAX_NAME_BYTES. */
    char long_tool[TR_MAX_NAME_BYTES + 32];
    strcpy(long_tool, "{\"name\": \"");
    memset(long_tool + strlen(long_tool), 'x', TR_MAX_NAME_BYTES + 1);
    strcpy(long_tool + 10 + TR_MAX_NAME_BYTES + 1, "\"}");
    frees = 0;
#define REG(tool, fn, outp, errp) tr_registry_register_callable(r, tool, fn, data, count_free, outp, errp)
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL,
               tr_registry_register_callable(NULL, "{\"name\": \"x\"}", echo_host, data, count_free, &out, &err),
               tr_registry_register_callable(NULL, "{\"name\": \"x\"}", echo_host, data, count_free, &out, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "tool_json", REG(NULL, echo_host, &out, &err), REG(NULL, echo_host, &out, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "fn", REG("{\"name\": \"x\"}", NULL, &out, &err),
               REG("{\"name\": \"x\"}", NULL, &out, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "names_json_out", REG("{\"name\": \"x\"}", echo_host, NULL, &err),
               REG("{\"name\": \"x\"}", echo_host, NULL, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, "tool_json", REG("{\"name\": \"\xff\"}", echo_host, &out, &err),
               REG("{\"name\": \"\xff\"}", echo_host, &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, "line 1", REG("{\"name\": ", echo_host, &out, &err),
               REG("{\"name\": ", echo_host, &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "exactly one tool", REG("[{\"name\": \"x\"}, {\"name\": \"y\"}]", echo_host, &out, &err),
               REG("[{\"name\": \"x\"}, {\"name\": \"y\"}]", echo_host, &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "reserved", REG("{\"name\": \"discover_tools\"}", echo_host, &out, &err),
               REG("{\"name\": \"discover_tools\"}", echo_host, &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "reserved", REG("{\"name\": \"call_deferred\"}", echo_host, &out, &err),
               REG("{\"name\": \"call_deferred\"}", echo_host, &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "name", REG("{\"name\": \"two words\"}", echo_host, &out, &err),
               REG("{\"name\": \"two words\"}", echo_host, &out, NULL));
    EXPECT_ERR(TR_STATUS_TOO_LARGE, "name", REG(long_tool, echo_host, &out, &err), REG(long_tool, echo_host, &out, NULL));
#undef REG
    CHECK(out == SENTINEL);
    /* Every failed call above (each row runs twice) freed the user data once. */
    CHECK_MSG(frees == 2 * 11, "user data freed %d times over 22 failed registrations", frees);
}

static void test_set_fallback(void) {
    int unused = 0;
    frees = 0;
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_set_fallback(NULL, echo_host, &unused, count_free, &err),
               tr_registry_set_fallback(NULL, echo_host, &unused, count_free, NULL));
    CHECK(frees == 2);
}

static void test_execute(tr_registry *r) {
    char *out = SENTINEL;
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_execute(NULL, CALLS, NULL, &out, &err),
               tr_registry_execute(NULL, CALLS, NULL, &out, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "calls_json", tr_registry_execute(r, NULL, NULL, &out, &err),
               tr_registry_execute(r, NULL, NULL, &out, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "messages_json_out", tr_registry_execute(r, CALLS, NULL, NULL, &err),
               tr_registry_execute(r, CALLS, NULL, NULL, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, "calls_json", tr_registry_execute(r, "[\"\xc3\x28\"]", NULL, &out, &err),
               tr_registry_execute(r, "[\"\xc3\x28\"]", NULL, &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, "options_json", tr_registry_execute(r, CALLS, "{\"\xe2\x82\"}", &out, &err),
               tr_registry_execute(r, CALLS, "{\"\xe2\x82\"}", &out, NULL));
    /* Malformed JSON: where it broke. */
    EXPECT_ERR(TR_STATUS_INVALID_JSON, "line 1", tr_registry_execute(r, "[{\"id\": ", NULL, &out, &err),
               tr_registry_execute(r, "[{\"id\": ", NULL, &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_registry_execute(r, "", NULL, &out, &err),
               tr_registry_execute(r, "", NULL, &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, "options", tr_registry_execute(r, CALLS, "{parallel: 2}", &out, &err),
               tr_registry_execute(r, CALLS, "{parallel: 2}", &out, NULL));
    /* Well-formed JSON that is no provider's tool-call list. */
    const char *not_calls[] = {"42", "\"call echo\"", "null", "{}", "{\"foo\": [1, 2]}", "[1, 2]",
                               "[{\"id\": \"1\", \"type\": \"function\"}]",
                               "{\"role\": \"assistant\", \"tool_calls\": 7}"};
    for (size_t i = 0; i < sizeof not_calls / sizeof not_calls[0]; i++) {
        EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_registry_execute(r, not_calls[i], NULL, &out, &err),
                   tr_registry_execute(r, not_calls[i], NULL, &out, NULL));
    }
    /* A call missing a field: the JSON path says which. */
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "[1]",
               tr_registry_execute(r, "[{\"id\": \"a\", \"type\": \"function\", \"function\": {\"name\": \"echo\", \"arguments\": \"{}\"}},"
                                      " {\"id\": \"b\", \"type\": \"function\", \"function\": {\"arguments\": \"{}\"}}]",
                                   NULL, &out, &err),
               TR_STATUS_INVALID_ARGUMENT);
    /* Bad options. */
    const char *bad_options[] = {"{\"parallel\": 0}", "{\"parallel\": 65}", "{\"parallel\": \"4\"}",
                                 "{\"api_format\": \"cohere\"}", "{\"include_assistant\": 1}", "{\"paralel\": 2}", "[]"};
    for (size_t i = 0; i < sizeof bad_options / sizeof bad_options[0]; i++) {
        EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_registry_execute(r, CALLS, bad_options[i], &out, &err),
                   tr_registry_execute(r, CALLS, bad_options[i], &out, NULL));
    }
    /* A forced format whose shape the calls do not have at all. */
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL,
               tr_registry_execute(r, "{\"role\": \"assistant\", \"tool_calls\": []}", "{\"api_format\": \"gemini\"}",
                                   &out, &err),
               tr_registry_execute(r, "{\"role\": \"assistant\", \"tool_calls\": []}", "{\"api_format\": \"gemini\"}",
                                   &out, NULL));
    CHECK(out == SENTINEL);

    /* The good call still works, and an empty list is an empty answer. */
    char *messages = NULL;
    OK(tr_registry_execute(r, CALLS, NULL, &messages, &err));
    CHECK_STR_EQ(messages, "[{\"role\":\"tool\",\"tool_call_id\":\"1\",\"content\":\"echo\"}]");
    tr_string_free(messages);
    messages = NULL;
    OK(tr_registry_execute(r, "[]", NULL, &messages, &err));
    CHECK_STR_EQ(messages, "[]");
    tr_string_free(messages);
}

static void test_disable_status_schemas(tr_registry *r) {
    char *out = SENTINEL;
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_disable(NULL, "echo", "x", &err),
               tr_registry_disable(NULL, "echo", "x", NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "name", tr_registry_disable(r, NULL, "x", &err),
               tr_registry_disable(r, NULL, "x", NULL));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, "name", tr_registry_disable(r, "ech\xff", "x", &err),
               tr_registry_disable(r, "ech\xff", "x", NULL));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, "reason", tr_registry_disable(r, "echo", "bad \xff reason", &err),
               tr_registry_disable(r, "echo", "bad \xff reason", NULL));
    EXPECT_ERR(TR_STATUS_NOT_FOUND, "missing", tr_registry_disable(r, "missing", NULL, &err),
               tr_registry_disable(r, "missing", NULL, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_tools_status(NULL, &out, &err),
               tr_registry_tools_status(NULL, &out, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_registry_tools_status(r, NULL, &err),
               tr_registry_tools_status(r, NULL, NULL));
    EXPECT_ERR(TR_STATUS_NOT_FOUND, "nope", tr_registry_get_schemas(r, "{\"names\": [\"echo\", \"nope\"]}", &out, &err),
               tr_registry_get_schemas(r, "{\"names\": [\"echo\", \"nope\"]}", &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "names", tr_registry_get_schemas(r, "{\"names\": {\"echo\": 1}}", &out, &err),
               tr_registry_get_schemas(r, "{\"names\": {\"echo\": 1}}", &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, NULL, tr_registry_get_schemas(r, "{\"names\": [\"\xff\"]}", &out, &err),
               tr_registry_get_schemas(r, "{\"names\": [\"\xff\"]}", &out, NULL));
    CHECK(out == SENTINEL);
}

int main(void) {
    tr_registry *r = NULL;
    char *names = NULL;
    OK(tr_registry_new(NULL, &r, &err));
    OK(tr_registry_register_callable(r, "{\"name\": \"echo\", \"description\": \"Echoes.\"}", echo_host, NULL, NULL,
                                     &names, &err));
    tr_string_free(names);
    char *before = snapshot(r);

    test_call_answers();
    test_register_callable(r);
    test_set_fallback();
    test_execute(r);
    test_disable_status_schemas(r);

    char *after = snapshot(r);
    CHECK_STR_EQ(after, before);
    free(before);
    free(after);
    tr_registry_free(r);
    return test_exit_code("test_execute_errors");
}
