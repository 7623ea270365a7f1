/*
 * Conversations (tr_conversation_*) from C99: the conversation corpus byte for byte (messages and
 * loaded names), a conversation outliving its registry handle (the hosts' user data freed only
 * with the conversation), reveal all-or-nothing, and the error table of the six exports: a NULL
 * for each pointer argument, invalid UTF-8, malformed JSON, bad options; each its status with a
 * one-line message, outputs untouched, nothing loaded, err_out NULL accepted.
 * Usage: test_conversation CORPUS_DIR (tests/conformance/conversation)
 */
#include <stdlib.h>
#include <string.h>

#include "conversation_corpus.h"
#include "json.h"
#include "test_util.h"
#include "toolregistry.h"

static char sentinel_byte;
#define SENTINEL ((char *)&sentinel_byte)

static int mentions(const char *message, const char *needle) {
    return needle == NULL || (message != NULL && strstr(message, needle) != NULL);
}

/* The status, one non-empty line that mentions `needle`; then the same call with err_out NULL
 * gives the same status. */
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

static const char *corpus_dir;

/* Every case through execute and through the two steps (prepare, the host's own run, finish). */
static void test_corpus(void) {
  for (int steps = 0; steps <= 1; steps++) {
    corpus_case *cases = NULL;
    size_t count = conversation_cases(corpus_dir, &cases);
    CHECK_MSG(count >= 8, "the corpus has %zu cases", count);
    for (size_t i = 0; i < count; i++) {
        char *want_messages = conversation_case_file(&cases[i], "expected.json");
        char *want_loaded = conversation_case_file(&cases[i], "loaded.json");
        char *want_tools = conversation_case_file(&cases[i], "tools.json"); /* optional */
        char *messages = NULL, *loaded = NULL, *tools = NULL, *err = NULL;
        tr_status st = conversation_run_case_with(corpus_dir, &cases[i], steps, &messages, &loaded, &tools, &err);
        CHECK_MSG(st == TR_STATUS_OK, "%s%s: %s: %s", cases[i].name, steps ? " (two steps)" : "", tr_status_name(st),
                  err ? err : "");
        CHECK_MSG(messages && want_messages && strcmp(messages, want_messages) == 0, "%s\n  want %s\n  got  %s",
                  cases[i].name, want_messages ? want_messages : "(none)", messages ? messages : "(none)");
        CHECK_MSG(loaded && want_loaded && strcmp(loaded, want_loaded) == 0, "%s loaded\n  want %s\n  got  %s",
                  cases[i].name, want_loaded ? want_loaded : "(none)", loaded ? loaded : "(none)");
        if (want_tools) {
            CHECK_MSG(tools && strcmp(tools, want_tools) == 0, "%s tools\n  want %s\n  got  %s", cases[i].name,
                      want_tools, tools ? tools : "(none)");
        }
        tr_string_free(messages);
        tr_string_free(loaded);
        tr_string_free(tools);
        tr_string_free(err);
        free(want_messages);
        free(want_loaded);
        free(want_tools);
    }
    corpus_cases_free(cases, count);
  }
}

static char *tools_of(const tr_conversation *c) {
    char *out = NULL;
    OK(tr_conversation_tools(c, &out, &err));
    return out;
}

static char *loaded_of(const tr_conversation *c) {
    char *out = NULL;
    OK(tr_conversation_loaded(c, &out, &err));
    return out;
}

/* The tools answer's shape: tools array, system_text string, a 64-hex-digit fingerprint. */
static json_value *parse_tools(const char *text) {
    json_value *v = text ? json_parse(text, NULL, 0) : NULL;
    CHECK_MSG(v != NULL, "tools answer is not JSON: %s", text ? text : "(null)");
    const json_value *tools = json_get(v, "tools");
    const char *fp = json_str(json_get(v, "fingerprint"));
    CHECK(tools != NULL && tools->type == JSON_ARRAY);
    CHECK(json_str(json_get(v, "system_text")) != NULL);
    CHECK_MSG(fp && strlen(fp) == 64 && strspn(fp, "0123456789abcdef") == 64, "fingerprint %s", fp ? fp : "(null)");
    return v;
}

static int has_tool(const json_value *answer, const char *name) {
    const json_value *tools = json_get(answer, "tools");
    for (size_t i = 0; tools && i < tools->count; i++) {
        const json_value *tool = json_at(tools, i);
        const json_value *function = json_get(tool, "function"); /* OpenAI chat nests it */
        const char *n = json_str(json_get(function ? function : tool, "name"));
        if (n && strcmp(n, name) == 0) return 1;
    }
    return 0;
}

/* A conversation keeps the registry's state (tools, hosts) after tr_registry_free: it still
 * answers tools, reveal and execute, and the hosts' user data are freed with the conversation. */
static void test_outlives_registry(void) {
    int frees_before = corpus_host_frees(), registrations_before = corpus_host_registrations();
    tr_registry *r = corpus_registry(corpus_dir);
    CHECK(r != NULL);
    if (!r) return;
    int registered = corpus_host_registrations() - registrations_before;
    tr_conversation *c = NULL;
    OK(tr_conversation_new(r, "{\"api_format\": \"anthropic\", \"mode\": \"native\"}", &c, &err));
    char *before = tools_of(c);
    tr_registry_free(r);
    CHECK_MSG(corpus_host_frees() == frees_before, "%d host data freed while the conversation lives",
              corpus_host_frees() - frees_before);
    char *after = tools_of(c);
    CHECK_STR_EQ(after, before);
    json_value *answer = parse_tools(after);
    CHECK(has_tool(answer, "discover_tools"));
    CHECK(has_tool(answer, "send_email") && has_tool(answer, "get_weather") && has_tool(answer, "get_time"));
    CHECK(strstr(after, "\"defer_loading\":true") != NULL);
    json_free(answer);

    OK(tr_conversation_reveal(c, "[\"send_email\"]", &err));
    char *loaded = loaded_of(c);
    CHECK_STR_EQ(loaded, "[\"send_email\"]");
    char *messages = NULL;
    OK(tr_conversation_execute(
        c, "[{\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"get_weather\", \"input\": {\"city\": \"Oslo\"}}]", NULL,
        &messages, &err));
    CHECK_STR_EQ(messages, "[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\","
                           "\"content\":\"get_weather <- {\\\"city\\\":\\\"Oslo\\\"}\"}]}]");
    char *loaded2 = loaded_of(c);
    CHECK_STR_EQ(loaded2, "[\"send_email\",\"get_weather\"]");
    tr_conversation_free(c);
    CHECK_MSG(corpus_host_frees() - frees_before == registered, "%d of %d host data freed with the conversation",
              corpus_host_frees() - frees_before, registered);
    tr_string_free(before);
    tr_string_free(after);
    tr_string_free(loaded);
    tr_string_free(loaded2);
    tr_string_free(messages);
}

/* Stable mode: loading appends to tools, so the previous bytes are a prefix of the new ones, and
 * the fingerprint changes exactly then; `loaded` restores a conversation. */
static void test_stable_reveal_and_restore(void) {
    tr_registry *r = corpus_registry(corpus_dir);
    CHECK(r != NULL);
    if (!r) return;
    tr_conversation *c = NULL;
    OK(tr_conversation_new(r, "{\"mode\": \"stable\"}", &c, &err));
    char *t0 = tools_of(c), *t0_again = tools_of(c);
    CHECK_STR_EQ(t0_again, t0);
    OK(tr_conversation_reveal(c, "[\"get_weather\"]", &err));
    char *t1 = tools_of(c);
    json_value *a0 = parse_tools(t0), *a1 = parse_tools(t1);
    CHECK(!has_tool(a0, "get_weather") && has_tool(a1, "get_weather"));
    strbuf s0, s1;
    sb_init(&s0);
    sb_init(&s1);
    sb_json(&s0, json_get(a0, "tools"));
    sb_json(&s1, json_get(a1, "tools"));
    CHECK_MSG(s0.len < s1.len && strncmp(s0.data, s1.data, s0.len - 1) == 0, "tools not extended:\n %s\n %s", s0.data,
              s1.data);
    CHECK(strcmp(json_str(json_get(a0, "fingerprint")), json_str(json_get(a1, "fingerprint"))) != 0);
    CHECK_STR_EQ(json_str(json_get(a1, "system_text")), json_str(json_get(a0, "system_text")));
    sb_free(&s0);
    sb_free(&s1);

    tr_conversation *restored = NULL;
    OK(tr_conversation_new(r, "{\"mode\": \"stable\", \"loaded\": [\"get_weather\"]}", &restored, &err));
    char *t_restored = tools_of(restored);
    CHECK_STR_EQ(t_restored, t1);
    tr_conversation_free(restored);
    tr_conversation_free(c);
    tr_registry_free(r);
    json_free(a0);
    json_free(a1);
    tr_string_free(t0);
    tr_string_free(t0_again);
    tr_string_free(t1);
    tr_string_free(t_restored);
}

static void test_errors(void) {
    tr_registry *r = corpus_registry(corpus_dir);
    CHECK(r != NULL);
    if (!r) return;
    tr_conversation *c = NULL;
    OK(tr_conversation_new(r, "{\"api_format\": \"anthropic\", \"mode\": \"native\"}", &c, &err));
    char *tools_before = tools_of(c);
    tr_conversation *out = (tr_conversation *)SENTINEL;
    char *text = SENTINEL;
    const char *const native = "{\"mode\": \"native\"}";

    /* tr_conversation_new */
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_conversation_new(NULL, NULL, &out, &err),
               tr_conversation_new(NULL, NULL, &out, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "out", tr_conversation_new(r, NULL, NULL, &err),
               tr_conversation_new(r, NULL, NULL, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, "options_json", tr_conversation_new(r, "{\"mode\": \"\xff\"}", &out, &err),
               tr_conversation_new(r, "{\"mode\": \"\xff\"}", &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_conversation_new(r, "{\"mode\": ", &out, &err),
               tr_conversation_new(r, "{\"mode\": ", &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, "native", tr_conversation_new(r, native, &out, &err),
               tr_conversation_new(r, native, &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_conversation_new(r, "{\"mode\": \"forever\"}", &out, &err),
               tr_conversation_new(r, "{\"mode\": \"forever\"}", &out, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_conversation_new(r, "[]", &out, &err),
               tr_conversation_new(r, "[]", &out, NULL));
    CHECK(out == (tr_conversation *)SENTINEL);

    /* tr_conversation_tools, tr_conversation_loaded */
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_conversation_tools(NULL, &text, &err),
               tr_conversation_tools(NULL, &text, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "json_out", tr_conversation_tools(c, NULL, &err),
               tr_conversation_tools(c, NULL, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_conversation_loaded(NULL, &text, &err),
               tr_conversation_loaded(NULL, &text, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "json_out", tr_conversation_loaded(c, NULL, &err),
               tr_conversation_loaded(c, NULL, NULL));

    /* tr_conversation_execute */
    const char *const calls = "[{\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"send_email\", \"input\": {}}]";
    const char *const chat_calls =
        "[{\"id\": \"1\", \"type\": \"function\", \"function\": {\"name\": \"send_email\", \"arguments\": \"{}\"}}]";
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_conversation_execute(NULL, calls, NULL, &text, &err),
               tr_conversation_execute(NULL, calls, NULL, &text, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "calls_json", tr_conversation_execute(c, NULL, NULL, &text, &err),
               tr_conversation_execute(c, NULL, NULL, &text, NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "messages_json_out", tr_conversation_execute(c, calls, NULL, NULL, &err),
               tr_conversation_execute(c, calls, NULL, NULL, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, "calls_json", tr_conversation_execute(c, "[\"\xc3\x28\"]", NULL, &text, &err),
               tr_conversation_execute(c, "[\"\xc3\x28\"]", NULL, &text, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, "options_json", tr_conversation_execute(c, calls, "{\"x\": \"\xff\"}", &text, &err),
               tr_conversation_execute(c, calls, "{\"x\": \"\xff\"}", &text, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_conversation_execute(c, "[{\"type\": ", NULL, &text, &err),
               tr_conversation_execute(c, "[{\"type\": ", NULL, &text, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_conversation_execute(c, calls, "{", &text, &err),
               tr_conversation_execute(c, calls, "{", &text, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_conversation_execute(c, "{\"hello\": 1}", NULL, &text, &err),
               tr_conversation_execute(c, "{\"hello\": 1}", NULL, &text, NULL));
    /* Another provider's call list, and another api_format than the conversation's. */
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_conversation_execute(c, chat_calls, NULL, &text, &err),
               tr_conversation_execute(c, chat_calls, NULL, &text, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL,
               tr_conversation_execute(c, calls, "{\"api_format\": \"gemini\"}", &text, &err),
               tr_conversation_execute(c, calls, "{\"api_format\": \"gemini\"}", &text, NULL));

    /* tr_conversation_reveal: all or none. */
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, NULL, tr_conversation_reveal(NULL, "[]", &err),
               tr_conversation_reveal(NULL, "[]", NULL));
    EXPECT_ERR(TR_STATUS_NULL_ARGUMENT, "names_json", tr_conversation_reveal(c, NULL, &err),
               tr_conversation_reveal(c, NULL, NULL));
    EXPECT_ERR(TR_STATUS_INVALID_UTF8, "names_json", tr_conversation_reveal(c, "[\"send\xff\"]", &err),
               tr_conversation_reveal(c, "[\"send\xff\"]", NULL));
    EXPECT_ERR(TR_STATUS_INVALID_JSON, NULL, tr_conversation_reveal(c, "[\"send_email\"", &err),
               tr_conversation_reveal(c, "[\"send_email\"", NULL));
    EXPECT_ERR(TR_STATUS_INVALID_ARGUMENT, NULL, tr_conversation_reveal(c, "{\"send_email\": 1}", &err),
               tr_conversation_reveal(c, "{\"send_email\": 1}", NULL));
    EXPECT_ERR(TR_STATUS_NOT_FOUND, "no_such_tool", tr_conversation_reveal(c, "[\"send_email\", \"no_such_tool\"]", &err),
               tr_conversation_reveal(c, "[\"send_email\", \"no_such_tool\"]", NULL));
    CHECK(text == SENTINEL);

    /* Nothing was loaded or changed by any of the failures. */
    char *loaded = loaded_of(c);
    CHECK_STR_EQ(loaded, "[]");
    char *tools_after = tools_of(c);
    CHECK_STR_EQ(tools_after, tools_before);
    tr_conversation_free(NULL);
    tr_conversation_free(c);
    tr_registry_free(r);
    tr_string_free(loaded);
    tr_string_free(tools_before);
    tr_string_free(tools_after);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_conversation CORPUS_DIR\n");
        return 2;
    }
    corpus_dir = argv[1];
    test_corpus();
    test_outlives_registry();
    test_stable_reveal_and_restore();
    test_errors();
    CHECK_MSG(corpus_host_frees() == corpus_host_registrations(), "%d of %d host data freed", corpus_host_frees(),
              corpus_host_registrations());
    return test_exit_code("test_conversation");
}
