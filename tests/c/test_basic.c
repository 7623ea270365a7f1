/*
 * The C ABI's main flows from C99: every accepted tool shape, discovery by exact name and by query,
 * deferred summaries, schemas in each api_format, discover_tools through tr_registry_call, a
 * standalone discoverer freed before and after its registry, and _free(NULL).
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "test_util.h"
#include "toolregistry.h"

/* One tool in each accepted shape, plus a namespace and metadata. */
static const char *const SHAPES =
    "["
    "{\"name\": \"flat_add\", \"description\": \"Add two numbers together.\","
    " \"parameters\": {\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"number\"}, \"b\": {\"type\": \"number\"}}}},"
    "{\"type\": \"function\", \"function\": {\"name\": \"chat_weather\", \"description\": \"Get the weather forecast for a city.\","
    " \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}}}},"
    "{\"type\": \"function\", \"name\": \"responses_translate\", \"description\": \"Translate text into another language.\","
    " \"parameters\": {\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}, \"target\": {\"type\": \"string\"}}}},"
    "{\"name\": \"anthropic_send_email\", \"description\": \"Send an email to a recipient. Uses SMTP.\","
    " \"input_schema\": {\"type\": \"object\", \"properties\": {\"to\": {\"type\": \"string\"}, \"body\": {\"type\": \"string\"}}},"
    " \"metadata\": {\"defer\": true, \"tags\": [\"network\"], \"search_hint\": \"mail message\"}},"
    "{\"name\": \"mcp_read_file\", \"description\": \"Read the contents of a file from disk.\","
    " \"inputSchema\": {\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}},"
    " \"metadata\": {\"tags\": [\"read_only\", \"file_system\"]}},"
    "{\"name\": \"list_issues\", \"namespace\": \"github\", \"description\": \"List the issues of a repository!\","
    " \"metadata\": {\"defer\": true}}"
    "]";

static const char *const NAMES[] = {"flat_add", "chat_weather", "responses_translate",
                                    "anthropic_send_email", "mcp_read_file", "github-list_issues"};
#define NUM_NAMES (sizeof NAMES / sizeof NAMES[0])

/* Parses a library string (and frees it); NULL-safe. */
static json_value *take_json(char *s) {
    char msg[128] = "";
    json_value *v = s ? json_parse(s, msg, sizeof msg) : NULL;
    CHECK_MSG(v != NULL, "library output is not JSON (%s): %s", msg, s ? s : "(null)");
    tr_string_free(s);
    return v;
}

static json_value *discover(const tr_discoverer *d, const char *query, const char *options) {
    char *out = NULL;
    OK(tr_discoverer_discover(d, query, options, &out, &err));
    return take_json(out);
}

/* The schema object of tool `name` in a get_schemas answer of format `format`. */
static const json_value *find_schema(const json_value *schemas, const char *format, const char *name) {
    for (size_t i = 0; schemas && i < schemas->count; i++) {
        const json_value *s = json_at(schemas, i);
        const json_value *named = strcmp(format, "openai-chat") == 0 ? json_get(s, "function") : s;
        const char *n = json_str(json_get(named, "name"));
        if (n && strcmp(n, name) == 0) return s;
    }
    return NULL;
}

static void test_register_shapes(tr_registry *r) {
    char *names = NULL;
    OK(tr_registry_register(r, SHAPES, &names, &err));
    json_value *v = take_json(names);
    CHECK(v && v->type == JSON_ARRAY && v->count == NUM_NAMES);
    for (size_t i = 0; v && i < NUM_NAMES && i < v->count; i++) CHECK_STR_EQ(json_str(json_at(v, i)), NAMES[i]);
    json_free(v);

    /* A single object (not an array) also registers, and registering a name again replaces it. */
    names = NULL;
    OK(tr_registry_register(r, "{\"name\": \"flat_add\", \"description\": \"Add two numbers together.\","
                               " \"parameters\": {\"type\": \"object\", \"properties\": {\"a\": {}, \"b\": {}}}}",
                            &names, &err));
    CHECK_STR_EQ(names, "[\"flat_add\"]");
    tr_string_free(names);
}

static void test_schemas(tr_registry *r) {
    static const char *const formats[] = {"openai-chat", "openai-responses", "anthropic", "gemini"};
    for (size_t f = 0; f < 4; f++) {
        char opts[64], *out = NULL;
        snprintf(opts, sizeof opts, "{\"api_format\": \"%s\"}", formats[f]);
        OK(tr_registry_get_schemas(r, opts, &out, &err));
        json_value *v = take_json(out);
        CHECK_MSG(v && v->count == NUM_NAMES, "%s: %zu schemas", formats[f], v ? v->count : 0);
        /* Sorted by name. */
        for (size_t i = 1; v && i < v->count; i++) {
            const json_value *a = json_at(v, i - 1), *b = json_at(v, i);
            if (f == 0) { a = json_get(a, "function"); b = json_get(b, "function"); }
            const char *na = json_str(json_get(a, "name")), *nb = json_str(json_get(b, "name"));
            CHECK(na && nb && strcmp(na, nb) < 0);
        }
        const json_value *email = find_schema(v, formats[f], "anthropic_send_email");
        CHECK_MSG(email != NULL, "%s: anthropic_send_email missing", formats[f]);
        const json_value *params = NULL;
        switch (f) {
        case 0:
            CHECK_STR_EQ(json_str(json_get(email, "type")), "function");
            params = json_get(json_get(email, "function"), "parameters");
            break;
        case 1:
            CHECK_STR_EQ(json_str(json_get(email, "type")), "function");
            params = json_get(email, "parameters");
            break;
        case 2: params = json_get(email, "input_schema"); break;
        case 3:
            params = json_get(email, "parameters");
            /* Gemini wants upper-case schema types. */
            CHECK_STR_EQ(json_str(json_get(params, "type")), "OBJECT");
            break;
        }
        CHECK_MSG(json_get(json_get(params, "properties"), "to") != NULL, "%s: input_schema kept", formats[f]);
        json_free(v);
    }

    /* Leaving out deferred tools, and filtering by tags. */
    char *out = NULL;
    OK(tr_registry_get_schemas(r, "{\"include_deferred\": false}", &out, &err));
    json_value *v = take_json(out);
    CHECK(v && v->count == NUM_NAMES - 2);
    CHECK(find_schema(v, "openai-chat", "github-list_issues") == NULL);
    json_free(v);
    out = NULL;
    OK(tr_registry_get_schemas(r, "{\"tags\": [\"file_system\"], \"api_format\": \"anthropic\"}", &out, &err));
    v = take_json(out);
    CHECK(v && v->count == 1 && find_schema(v, "anthropic", "mcp_read_file"));
    json_free(v);
}

static void test_summaries(tr_registry *r) {
    char *out = NULL;
    OK(tr_registry_deferred_summaries(r, &out, &err));
    json_value *v = take_json(out);
    CHECK(v && v->count == 2);
    const json_value *a = json_at(v, 0), *b = json_at(v, 1);
    /* Registration order; the first sentence only. */
    CHECK_STR_EQ(json_str(json_get(a, "name")), "anthropic_send_email");
    CHECK_STR_EQ(json_str(json_get(a, "description")), "Send an email to a recipient.");
    CHECK(json_get(a, "namespace") && json_get(a, "namespace")->type == JSON_NULL);
    CHECK_STR_EQ(json_str(json_get(b, "name")), "github-list_issues");
    CHECK_STR_EQ(json_str(json_get(b, "description")), "List the issues of a repository!");
    CHECK_STR_EQ(json_str(json_get(b, "namespace")), "github");
    json_free(v);
}

static void test_discover(tr_registry *r) {
    tr_discoverer *d = NULL;
    OK(tr_discoverer_new(r, NULL, &d, &err));

    /* Exact name, and the same name spelled with '/', '-' and upper case. */
    static const char *const spellings[] = {"github-list_issues", "GitHub/List-Issues", "GITHUB_LIST_ISSUES"};
    for (size_t i = 0; i < 3; i++) {
        json_value *v = discover(d, spellings[i], NULL);
        CHECK_MSG(v && v->count == 1, "%s", spellings[i]);
        const json_value *hit = json_at(v, 0);
        CHECK_STR_EQ(json_str(json_get(hit, "name")), "github-list_issues");
        CHECK(json_get(hit, "score") && json_get(hit, "score")->number == 1.0);
        CHECK(json_get(hit, "schema") != NULL);
        CHECK(json_get(hit, "deferred") && json_get(hit, "deferred")->boolean);
        json_free(v);
    }
    /* An exact match on a non-deferred tool also carries its schema, in the requested format. */
    json_value *v = discover(d, "mcp_read_file", "{\"api_format\": \"anthropic\"}");
    CHECK(v && v->count == 1 && json_get(json_get(json_at(v, 0), "schema"), "input_schema") != NULL);
    json_free(v);

    /* A query: the deferred email tool first, with its schema; non-deferred hits have none. */
    v = discover(d, "send an email message", NULL);
    CHECK(v && v->count >= 1);
    const json_value *top = json_at(v, 0);
    CHECK_STR_EQ(json_str(json_get(top, "name")), "anthropic_send_email");
    CHECK(json_get(top, "schema") != NULL);
    double best = json_get(top, "score") ? json_get(top, "score")->number : 0;
    CHECK(best > 0);
    for (size_t i = 0; v && i < v->count; i++) {
        const json_value *hit = json_at(v, i);
        const json_value *deferred = json_get(hit, "deferred");
        CHECK(deferred && deferred->type == JSON_BOOL);
        CHECK((json_get(hit, "schema") != NULL) == (deferred && deferred->boolean));
        CHECK(json_get(hit, "score")->number <= best && json_get(hit, "score")->number >= 0.3 * best);
    }
    json_free(v);

    v = discover(d, "weather forecast", "{\"top_k\": 1}");
    CHECK(v && v->count == 1);
    CHECK_STR_EQ(json_str(json_get(json_at(v, 0), "name")), "chat_weather");
    CHECK(json_get(json_at(v, 0), "schema") == NULL);
    json_free(v);

    /* Disabling a namespace hides its tools; metadata changes are searched at once. */
    OK(tr_registry_set_enabled(r, "github", false, &err));
    v = discover(d, "github-list_issues", NULL);
    CHECK(v && (v->count == 0 || strcmp(json_str(json_get(json_at(v, 0), "name")), "github-list_issues") != 0));
    json_free(v);
    OK(tr_registry_set_enabled(r, "github", true, &err));
    OK(tr_registry_set_metadata(r, "chat_weather", "{\"search_hint\": \"umbrella\"}", &err));
    v = discover(d, "umbrella", NULL);
    CHECK(v && v->count == 1);
    CHECK_STR_EQ(json_str(json_get(json_at(v, 0), "name")), "chat_weather");
    json_free(v);

    /* rebuild_index changes no answer. */
    char *before = NULL, *after = NULL;
    OK(tr_discoverer_discover(d, "read a file", NULL, &before, &err));
    OK(tr_discoverer_rebuild_index(d, &err));
    OK(tr_discoverer_discover(d, "read a file", NULL, &after, &err));
    CHECK_STR_EQ(before, after);
    tr_string_free(before);
    tr_string_free(after);

    /* explain: how a query ranks one tool, agreeing with discover. */
    char *explained = NULL;
    OK(tr_discoverer_explain(d, "weather forecast", "chat_weather", NULL, &explained, &err));
    v = take_json(explained);
    const json_value *tool = json_get(v, "tool");
    CHECK_STR_EQ(json_str(json_get(tool, "outcome")), "ranked");
    CHECK(json_get(tool, "rank") && json_get(tool, "rank")->number == 1.0);
    json_free(v);
    explained = NULL;
    OK(tr_discoverer_explain(d, "weather forecast", "flat_add", NULL, &explained, &err));
    v = take_json(explained);
    CHECK_STR_EQ(json_str(json_get(json_get(v, "tool"), "outcome")), "no_common_token");
    json_free(v);
    tr_discoverer_free(d);
}

static void test_discover_tools_call(tr_registry *r) {
    OK(tr_registry_enable_discovery(r, NULL, &err));
    tr_discoverer *d = NULL;
    OK(tr_discoverer_new(r, NULL, &d, &err));

    char *via_call = NULL, *via_discoverer = NULL;
    OK(tr_registry_call(r, "discover_tools", "{\"query\": \"translate text\", \"top_k\": 3}", &via_call, &err));
    OK(tr_discoverer_discover(d, "translate text", "{\"top_k\": 3}", &via_discoverer, &err));
    CHECK_STR_EQ(via_call, via_discoverer);
    json_value *v = take_json(via_call);
    CHECK(v && v->count >= 1);
    CHECK_STR_EQ(json_str(json_get(json_at(v, 0), "name")), "responses_translate");
    json_free(v);
    tr_string_free(via_discoverer);

    /* discover_tools itself appears in the schemas; its description lists the deferred tools. */
    char *out = NULL;
    OK(tr_registry_get_schemas(r, NULL, &out, &err));
    v = take_json(out);
    const json_value *dt = find_schema(v, "openai-chat", "discover_tools");
    const char *desc = json_str(json_get(json_get(dt, "function"), "description"));
    CHECK(desc && strstr(desc, "- anthropic_send_email: Send an email to a recipient.") != NULL);
    CHECK(desc && strstr(desc, "- github-list_issues: List the issues of a repository!") != NULL);
    const json_value *props = json_get(json_get(json_get(dt, "function"), "parameters"), "properties");
    CHECK(json_get(props, "query") && json_get(props, "top_k") && json_get(props, "api_format"));
    json_free(v);

    /* It is never indexed itself. */
    v = NULL;
    out = NULL;
    OK(tr_registry_call(r, "discover_tools", "{\"query\": \"discover tools\"}", &out, &err));
    v = take_json(out);
    for (size_t i = 0; v && i < v->count; i++)
        CHECK(strcmp(json_str(json_get(json_at(v, i), "name")), "discover_tools") != 0);
    json_free(v);
    tr_discoverer_free(d);
}

/* A discoverer keeps the registry state alive, so the two are freed in either order. */
static void test_free_orders(void) {
    for (int registry_first = 0; registry_first < 2; registry_first++) {
        tr_registry *r = NULL;
        tr_discoverer *d = NULL;
        char *names = NULL;
        OK(tr_registry_new(NULL, &r, &err));
        OK(tr_registry_register(r, SHAPES, &names, &err));
        tr_string_free(names);
        OK(tr_discoverer_new(r, "{\"min_score_ratio\": 0}", &d, &err));
        if (registry_first) {
            tr_registry_free(r);
            /* Still answers from the shared state. */
            json_value *v = discover(d, "read the file contents", NULL);
            CHECK(v && v->count >= 1);
            CHECK_STR_EQ(json_str(json_get(json_at(v, 0), "name")), "mcp_read_file");
            json_free(v);
            tr_discoverer_free(d);
        } else {
            tr_discoverer_free(d);
            char *out = NULL;
            OK(tr_registry_deferred_summaries(r, &out, &err));
            tr_string_free(out);
            tr_registry_free(r);
        }
    }
}

int main(void) {
    CHECK_STR_EQ(tr_version(), TOOLREGISTRY_VERSION);
    CHECK_STR_EQ(tr_status_name(TR_STATUS_OK), "TR_STATUS_OK");
    CHECK_STR_EQ(tr_status_name(TR_STATUS_NOT_FOUND), "TR_STATUS_NOT_FOUND");
    CHECK_STR_EQ(tr_status_name(12345), "TR_STATUS_UNKNOWN");

    /* _free(NULL) is a no-op for every handle and string type. */
    tr_registry_free(NULL);
    tr_discoverer_free(NULL);
    tr_string_free(NULL);

    tr_registry *r = NULL;
    OK(tr_registry_new(NULL, &r, &err));
    CHECK(r != NULL);
    test_register_shapes(r);
    test_schemas(r);
    test_summaries(r);
    test_discover(r);
    test_discover_tools_call(r);
    tr_registry_free(r);
    test_free_orders();
    return test_exit_code("test_basic");
}
