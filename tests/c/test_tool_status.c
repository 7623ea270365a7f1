/*
 * Tool status and disable reasons from C99: tr_registry_tools_status for every tool (disabled
 * ones included, sorted by name), tr_registry_disable with and without a reason, for a tool and
 * for a namespace, the reason reaching the model through execute, enabling clearing it, and
 * tr_registry_get_schemas with {"names": [...]} (that order, disabled tools included, an unknown
 * name is TR_STATUS_NOT_FOUND naming it).
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "toolregistry.h"

static void echo_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    (void)user_data;
    (void)args_json;
    tr_call_return(call, tool_name);
}

static char *status_of(const tr_registry *r) {
    char *out = NULL;
    OK(tr_registry_tools_status(r, &out, &err));
    return out;
}

static void check_status(const tr_registry *r, const char *want) {
    char *got = status_of(r);
    CHECK_STR_EQ(got, want);
    tr_string_free(got);
}

/* The content of a single OpenAI chat call's result. */
static char *call_content(tr_registry *r, const char *name) {
    char calls[256], *out = NULL;
    snprintf(calls, sizeof calls,
             "{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"x\", \"type\": \"function\","
             " \"function\": {\"name\": \"%s\", \"arguments\": \"{}\"}}]}", name);
    OK(tr_registry_execute(r, calls, NULL, &out, &err));
    return out;
}

static void check_call(tr_registry *r, const char *name, const char *want_content) {
    char *got = call_content(r, name), want[512];
    snprintf(want, sizeof want, "[{\"role\":\"tool\",\"tool_call_id\":\"x\",\"content\":\"%s\"}]", want_content);
    CHECK_STR_EQ(got, want);
    tr_string_free(got);
}

#define ROW(name, ns, enabled, reason, deferred, tags, callable)                                            \
    "{\"name\":\"" name "\",\"namespace\":" ns ",\"enabled\":" enabled ",\"reason\":" reason                \
    ",\"deferred\":" deferred ",\"tags\":" tags ",\"callable\":" callable "}"

static void test_status_and_disable(void) {
    tr_registry *r = NULL;
    char *names = NULL;
    OK(tr_registry_new("{\"discovery\": {}}", &r, &err));
    check_status(r, "[]");
    OK(tr_registry_register(r,
                            "[{\"name\": \"zeta\", \"description\": \"Last by name.\", \"metadata\": {\"defer\": true,"
                            "  \"tags\": [\"slow\", \"network\"]}},"
                            " {\"name\": \"list_issues\", \"namespace\": \"github\", \"description\": \"List issues.\"},"
                            " {\"name\": \"open_pr\", \"namespace\": \"github\", \"description\": \"Open a PR.\"}]",
                            &names, &err));
    tr_string_free(names);
    names = NULL;
    OK(tr_registry_register_callable(r, "{\"name\": \"alpha\", \"description\": \"First by name.\"}", echo_host, NULL,
                                     NULL, &names, &err));
    tr_string_free(names);

    /* Sorted by name; built-ins are not listed; callable only where a host would run. */
    const char *all_on = "[" ROW("alpha", "null", "true", "null", "false", "[]", "true") ","
                         ROW("github-list_issues", "\"github\"", "true", "null", "false", "[]", "false") ","
                         ROW("github-open_pr", "\"github\"", "true", "null", "false", "[]", "false") ","
                         ROW("zeta", "null", "true", "null", "true", "[\"slow\",\"network\"]", "false") "]";
    check_status(r, all_on);
    check_call(r, "alpha", "alpha");

    /* A reason, then none; the model hears either. */
    OK(tr_registry_disable(r, "alpha", "under maintenance until 10:00", &err));
    OK(tr_registry_disable(r, "zeta", NULL, &err));
    check_status(r, "[" ROW("alpha", "null", "false", "\"under maintenance until 10:00\"", "false", "[]", "true") ","
                    ROW("github-list_issues", "\"github\"", "true", "null", "false", "[]", "false") ","
                    ROW("github-open_pr", "\"github\"", "true", "null", "false", "[]", "false") ","
                    ROW("zeta", "null", "false", "null", "true", "[\"slow\",\"network\"]", "false") "]");
    check_call(r, "alpha", "Error: tool \\\"alpha\\\" is disabled: under maintenance until 10:00");
    check_call(r, "zeta", "Error: tool \\\"zeta\\\" is disabled");

    /* Disabled tools leave the schemas and discovery, and come back. */
    char *schemas = NULL;
    OK(tr_registry_get_schemas(r, NULL, &schemas, &err));
    CHECK_MSG(schemas && strstr(schemas, "\"alpha\"") == NULL && strstr(schemas, "\"zeta\"") == NULL, "%s",
              schemas ? schemas : "(null)");
    tr_string_free(schemas);

    /* Disabling again replaces the reason; an empty reason is no reason. */
    OK(tr_registry_disable(r, "alpha", "moved to beta", &err));
    check_call(r, "alpha", "Error: tool \\\"alpha\\\" is disabled: moved to beta");
    OK(tr_registry_disable(r, "alpha", "", &err));
    check_call(r, "alpha", "Error: tool \\\"alpha\\\" is disabled");

    /* Enabling clears the reason; disabling without one afterwards has none. */
    OK(tr_registry_disable(r, "alpha", "back soon", &err));
    OK(tr_registry_set_enabled(r, "alpha", true, &err));
    OK(tr_registry_set_enabled(r, "zeta", true, &err));
    check_status(r, all_on);
    check_call(r, "alpha", "alpha");
    OK(tr_registry_set_enabled(r, "alpha", false, &err));
    check_call(r, "alpha", "Error: tool \\\"alpha\\\" is disabled");
    OK(tr_registry_set_enabled(r, "alpha", true, &err));

    /* A namespace: each member carries the namespace's reason. */
    OK(tr_registry_disable(r, "github", "GitHub is rate-limiting us", &err));
    check_status(r, "[" ROW("alpha", "null", "true", "null", "false", "[]", "true") ","
                    ROW("github-list_issues", "\"github\"", "false", "\"GitHub is rate-limiting us\"", "false", "[]", "false") ","
                    ROW("github-open_pr", "\"github\"", "false", "\"GitHub is rate-limiting us\"", "false", "[]", "false") ","
                    ROW("zeta", "null", "true", "null", "true", "[\"slow\",\"network\"]", "false") "]");
    check_call(r, "github-open_pr", "Error: tool \\\"github-open_pr\\\" is disabled: GitHub is rate-limiting us");
    OK(tr_registry_set_enabled(r, "github", true, &err));
    check_status(r, all_on);

    /* Unknown names change nothing. */
    {
        char *err = NULL;
        CHECK(tr_registry_disable(r, "nope", "why", &err) == TR_STATUS_NOT_FOUND);
        CHECK_MSG(err && strstr(err, "nope"), "%s", err ? err : "(null)");
        tr_string_free(err);
    }
    check_status(r, all_on);

    /* Unregistered tools leave the status. */
    OK(tr_registry_unregister(r, "zeta", &err));
    char *status = status_of(r);
    CHECK_MSG(status && strstr(status, "zeta") == NULL, "%s", status ? status : "(null)");
    tr_string_free(status);
    tr_registry_free(r);
}

static void expect_schemas(const tr_registry *r, const char *options, const char *want) {
    char *got = NULL;
    OK(tr_registry_get_schemas(r, options, &got, &err));
    CHECK_STR_EQ(got, want);
    tr_string_free(got);
}

static void test_schemas_by_name(void) {
    tr_registry *r = NULL;
    char *names = NULL;
    OK(tr_registry_new(NULL, &r, &err));
    OK(tr_registry_register(r,
                            "[{\"name\": \"a\", \"description\": \"Tool A.\"},"
                            " {\"name\": \"b\", \"description\": \"Tool B.\", \"metadata\": {\"defer\": true}},"
                            " {\"name\": \"c\", \"description\": \"Tool C.\","
                            "  \"parameters\": {\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"string\"}}}}]",
                            &names, &err));
    tr_string_free(names);
    OK(tr_registry_disable(r, "a", "off", &err));

    const char *schema_a = "{\"type\":\"function\",\"function\":{\"name\":\"a\",\"description\":\"Tool A.\","
                           "\"parameters\":{\"type\":\"object\",\"properties\":{}}}}";
    const char *schema_c = "{\"type\":\"function\",\"function\":{\"name\":\"c\",\"description\":\"Tool C.\","
                           "\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}}}}}";
    char want[1024];
    /* That order, the disabled "a" included, the other filters ignored. */
    snprintf(want, sizeof want, "[%s,%s]", schema_c, schema_a);
    expect_schemas(r, "{\"names\": [\"c\", \"a\"], \"include_deferred\": false, \"tags\": [\"none\"]}", want);
    expect_schemas(r, "{\"names\": []}", "[]");
    expect_schemas(r, "{\"names\": [\"c\"], \"api_format\": \"anthropic\"}",
                   "[{\"name\":\"c\",\"description\":\"Tool C.\",\"input_schema\":{\"type\":\"object\","
                   "\"properties\":{\"x\":{\"type\":\"string\"}}}}]");
    /* Without names, the disabled tool is left out. */
    char *all = NULL;
    OK(tr_registry_get_schemas(r, NULL, &all, &err));
    CHECK_MSG(all && strstr(all, "\"name\":\"a\"") == NULL && strstr(all, "\"name\":\"b\"") != NULL, "%s",
              all ? all : "(null)");
    tr_string_free(all);

    /* An unknown name: NOT_FOUND naming it, output untouched. */
    {
        char sentinel = 0, *out = &sentinel, *err = NULL;
        CHECK(tr_registry_get_schemas(r, "{\"names\": [\"c\", \"missing_tool\"]}", &out, &err) == TR_STATUS_NOT_FOUND);
        CHECK(out == &sentinel);
        CHECK_MSG(err && strstr(err, "missing_tool") && strstr(err, "names[1]"), "%s", err ? err : "(null)");
        tr_string_free(err);
        err = NULL;
        CHECK(tr_registry_get_schemas(r, "{\"names\": \"c\"}", &out, &err) == TR_STATUS_INVALID_ARGUMENT);
        CHECK(out == &sentinel);
        CHECK_MSG(err && strstr(err, "names"), "%s", err ? err : "(null)");
        tr_string_free(err);
        err = NULL;
        CHECK(tr_registry_get_schemas(r, "{\"names\": [1]}", &out, &err) == TR_STATUS_INVALID_ARGUMENT);
        tr_string_free(err);
    }

    /* Built-ins by name, once discovery is on. */
    OK(tr_registry_enable_discovery(r, NULL, &err));
    char *builtins = NULL;
    OK(tr_registry_get_schemas(r, "{\"names\": [\"discover_tools\", \"call_deferred\"]}", &builtins, &err));
    CHECK_MSG(builtins && strstr(builtins, "\"name\":\"discover_tools\"") &&
                  strstr(builtins, "\"name\":\"call_deferred\"") &&
                  strstr(builtins, "\"name\":\"discover_tools\"") < strstr(builtins, "\"name\":\"call_deferred\""),
              "%s", builtins ? builtins : "(null)");
    tr_string_free(builtins);
    tr_registry_free(r);
}

int main(void) {
    test_status_and_disable();
    test_schemas_by_name();
    return test_exit_code("test_tool_status");
}
