/*
 * Host functions and tool-call execution from C99: callables answering with tr_call_return and
 * tr_call_fail, a callback that answers neither, answering twice, the schema check before the
 * host runs; free_user_data exactly once per registration in every path (unregister, replace,
 * registry free, failed registration, fallback replaced or removed, and never while the call is
 * running); fallback routing by name; re-entrancy (a callback that registers a tool, runs
 * discover_tools and executes on the same registry, sequentially and with {"parallel": 4}).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "test_util.h"
#include "toolregistry.h"

/* ---- host data with counters ------------------------------------------------------------- */

/* Frees and calls can happen on library threads ({"parallel": N}): counters are locked. */
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    int *frees;            /* incremented when the library frees this host data */
    int calls;             /* how many times the host ran */
    tr_registry *registry; /* for hosts that call back into the registry */
    tr_status statuses[3]; /* what the answers returned, for the answer-rule hosts */
} host_data;

/* A host's free count as seen from inside its own call, for the in-flight checks. */
static int frees_seen_inside = -1;

static host_data *new_host(int *frees, tr_registry *registry) {
    host_data *d = calloc(1, sizeof *d);
    if (!d) abort();
    d->frees = frees;
    d->registry = registry;
    return d;
}

static void free_host(void *user_data) {
    host_data *d = user_data;
    pthread_mutex_lock(&counter_lock);
    (*d->frees)++;
    pthread_mutex_unlock(&counter_lock);
    free(d);
}

static int read_counter(const int *counter) {
    pthread_mutex_lock(&counter_lock);
    int value = *counter;
    pthread_mutex_unlock(&counter_lock);
    return value;
}

static void count_call(host_data *d) {
    pthread_mutex_lock(&counter_lock);
    d->calls++;
    pthread_mutex_unlock(&counter_lock);
}

/* ---- host functions ------------------------------------------------------------------------ */

/* "NAME <- ARGS", as the corpus's echo host. */
static void echo_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    count_call(user_data);
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s <- %s", tool_name, args_json);
    tr_call_return(call, sb.data);
    sb_free(&sb);
}

static void fail_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    (void)tool_name;
    (void)args_json;
    count_call(user_data);
    tr_call_fail(call, "upstream returned 503");
}

static void silent_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    (void)tool_name;
    (void)args_json;
    (void)call;
    count_call(user_data);
}

/* Answers three times: the first answer counts, the others are refused. */
static void return_twice_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    host_data *d = user_data;
    (void)tool_name;
    (void)args_json;
    count_call(d);
    d->statuses[0] = tr_call_return(call, "first");
    d->statuses[1] = tr_call_return(call, "second");
    d->statuses[2] = tr_call_fail(call, "third");
}

static void fail_then_return_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    host_data *d = user_data;
    (void)tool_name;
    (void)args_json;
    count_call(d);
    d->statuses[0] = tr_call_fail(call, "first failure");
    d->statuses[1] = tr_call_return(call, "ignored");
    d->statuses[2] = tr_call_fail(call, "ignored too");
}

/* Answers with invalid UTF-8, then tries again: the call fails and keeps failing. */
static void bad_utf8_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    host_data *d = user_data;
    (void)tool_name;
    (void)args_json;
    count_call(d);
    d->statuses[0] = tr_call_return(call, "caf\xc3");
    d->statuses[1] = tr_call_return(call, "cafe");
}

static void null_content_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    host_data *d = user_data;
    (void)tool_name;
    (void)args_json;
    count_call(d);
    d->statuses[0] = tr_call_return(call, NULL);
}

/* Unregisters its own tool while it runs: its data must outlive the call. */
static void self_unregister_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    host_data *d = user_data;
    (void)args_json;
    count_call(d);
    char *err = NULL;
    tr_status st = tr_registry_unregister(d->registry, tool_name, &err);
    frees_seen_inside = read_counter(d->frees);
    if (st == TR_STATUS_OK) tr_call_return(call, "unregistered myself");
    else tr_call_fail(call, err ? err : "unregister failed");
    tr_string_free(err);
}

/* A fallback that replaces the fallback (itself) while it runs. */
static int replaced_fallback_frees = 0;
static void self_replacing_fallback(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    host_data *d = user_data;
    (void)args_json;
    count_call(d);
    char *err = NULL;
    tr_status st = tr_registry_set_fallback(d->registry, echo_host, new_host(&replaced_fallback_frees, NULL),
                                            free_host, &err);
    frees_seen_inside = read_counter(d->frees);
    if (st == TR_STATUS_OK) tr_call_return(call, tool_name);
    else tr_call_fail(call, err ? err : "set_fallback failed");
    tr_string_free(err);
}

/* The fallback of a gateway: routes every definition-only tool by name. */
static void route_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    count_call(user_data);
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "routed %s %s", tool_name, args_json);
    tr_call_return(call, sb.data);
    sb_free(&sb);
}

/* ---- helpers ------------------------------------------------------------------------------- */

/* An OpenAI chat tool_calls array: call i has id "c<i>", tool names[i], arguments args[i]. */
static char *chat_calls(size_t n, const char *const *names, const char *const *args) {
    strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "[");
    for (size_t i = 0; i < n; i++) {
        sb_printf(&sb, "%s{\"id\": \"c%zu\", \"type\": \"function\", \"function\": {\"name\": ", i ? ", " : "", i);
        sb_quote(&sb, names[i]);
        sb_puts(&sb, ", \"arguments\": ");
        sb_quote(&sb, args[i]);
        sb_puts(&sb, "}}");
    }
    sb_puts(&sb, "]");
    return sb.data;
}

/* Executes the calls and returns the parsed messages (NULL after a reported failure). */
static json_value *execute(tr_registry *r, size_t n, const char *const *names, const char *const *args,
                           const char *options) {
    char *calls = chat_calls(n, names, args), *out = NULL;
    OK(tr_registry_execute(r, calls, options, &out, &err));
    free(calls);
    json_value *v = out ? json_parse(out, NULL, 0) : NULL;
    CHECK_MSG(v && v->type == JSON_ARRAY && v->count == n, "bad messages: %s", out ? out : "(none)");
    tr_string_free(out);
    return v;
}

/* The content of message i, checking it answers call "c<i>". */
static const char *content_of(const json_value *messages, size_t i) {
    const json_value *m = json_at(messages, i);
    char id[32];
    snprintf(id, sizeof id, "c%zu", i);
    CHECK_STR_EQ(json_str(json_get(m, "role")), "tool");
    CHECK_STR_EQ(json_str(json_get(m, "tool_call_id")), id);
    return json_str(json_get(m, "content"));
}

/* Runs one call and returns its content (malloc'd). */
static char *run_one(tr_registry *r, const char *name, const char *args) {
    json_value *v = execute(r, 1, &name, &args, NULL);
    const char *content = v ? content_of(v, 0) : NULL;
    char *copy = content ? strcpy(malloc(strlen(content) + 1), content) : NULL;
    json_free(v);
    return copy;
}

static int starts_with(const char *s, const char *prefix) {
    return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

#define CHECK_CONTENT(r, name, args, want)                                                          \
    do {                                                                                            \
        char *got_ = run_one((r), (name), (args));                                                  \
        CHECK_STR_EQ(got_, (want));                                                                 \
        free(got_);                                                                                 \
    } while (0)

static void register_callable(tr_registry *r, const char *tool_json, tr_tool_fn fn, host_data *d) {
    char *names = NULL;
    OK(tr_registry_register_callable(r, tool_json, fn, d, free_host, &names, &err));
    tr_string_free(names);
}

static void register_plain(tr_registry *r, const char *tool_json) {
    char *names = NULL;
    OK(tr_registry_register(r, tool_json, &names, &err));
    tr_string_free(names);
}

static const char *const CITY_TOOL =
    "{\"name\": \"get_weather\", \"description\": \"Current weather for a city.\","
    " \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}";

/* ---- tests --------------------------------------------------------------------------------- */

static void test_answers(void) {
    tr_registry *r = NULL;
    OK(tr_registry_new(NULL, &r, &err));
    int frees = 0;
    host_data *echo = new_host(&frees, r), *fail = new_host(&frees, r), *silent = new_host(&frees, r),
              *twice = new_host(&frees, r), *fail_first = new_host(&frees, r), *bad = new_host(&frees, r),
              *null_content = new_host(&frees, r);
    char *names = NULL;
    OK(tr_registry_register_callable(r, CITY_TOOL, echo_host, echo, free_host, &names, &err));
    CHECK_STR_EQ(names, "[\"get_weather\"]");
    tr_string_free(names);
    register_callable(r, "{\"name\": \"broken\", \"description\": \"Fails.\"}", fail_host, fail);
    register_callable(r, "{\"name\": \"silent\", \"description\": \"Says nothing.\"}", silent_host, silent);
    register_callable(r, "{\"name\": \"twice\", \"description\": \"Answers thrice.\"}", return_twice_host, twice);
    register_callable(r, "{\"name\": \"fail_first\", \"description\": \"Fails, then answers.\"}",
                      fail_then_return_host, fail_first);
    register_callable(r, "{\"name\": \"bad_utf8\", \"description\": \"Answers with broken text.\"}", bad_utf8_host, bad);
    register_callable(r, "{\"name\": \"null_content\", \"description\": \"Answers NULL.\"}", null_content_host,
                      null_content);

    const char *const names7[] = {"get_weather", "broken", "silent", "twice", "fail_first", "bad_utf8", "null_content"};
    const char *const args7[] = {"{\"city\": \"Paris\"}", "{}", "{}", "{}", "{}", "{}", "{}"};
    json_value *v = execute(r, 7, names7, args7, NULL);
    if (v) {
        CHECK_STR_EQ(content_of(v, 0), "get_weather <- {\"city\":\"Paris\"}");
        CHECK_STR_EQ(content_of(v, 1), "Error: upstream returned 503");
        CHECK_STR_EQ(content_of(v, 2), "Error: the host function returned no result");
        CHECK_STR_EQ(content_of(v, 3), "first");
        CHECK_STR_EQ(content_of(v, 4), "Error: first failure");
        const char *bad_text = content_of(v, 5);
        CHECK_MSG(starts_with(bad_text, "Error: the host function gave an unusable result: ") &&
                      strstr(bad_text, "UTF-8") != NULL,
                  "%s", bad_text ? bad_text : "(null)");
        CHECK_MSG(starts_with(content_of(v, 6), "Error: the host function gave an unusable result: "), "%s",
                  content_of(v, 6) ? content_of(v, 6) : "(null)");
    }
    json_free(v);
    CHECK(twice->statuses[0] == TR_STATUS_OK);
    CHECK(twice->statuses[1] == TR_STATUS_INVALID_ARGUMENT);
    CHECK(twice->statuses[2] == TR_STATUS_INVALID_ARGUMENT);
    CHECK(fail_first->statuses[0] == TR_STATUS_OK);
    CHECK(fail_first->statuses[1] == TR_STATUS_INVALID_ARGUMENT);
    CHECK(fail_first->statuses[2] == TR_STATUS_INVALID_ARGUMENT);
    CHECK(bad->statuses[0] == TR_STATUS_INVALID_UTF8);
    CHECK(bad->statuses[1] == TR_STATUS_INVALID_ARGUMENT);
    CHECK(null_content->statuses[0] == TR_STATUS_NULL_ARGUMENT);
    CHECK(echo->calls == 1 && fail->calls == 1 && silent->calls == 1 && twice->calls == 1);

    /* Arguments are checked against the schema before the host runs. */
    CHECK_CONTENT(r, "get_weather", "{\"city\": 5}",
                  "Error: invalid arguments for tool \"get_weather\": /city: 5 is not of type \"string\"");
    char *missing = run_one(r, "get_weather", "{}");
    CHECK_MSG(starts_with(missing, "Error: invalid arguments for tool \"get_weather\"") &&
                  strstr(missing, "city") != NULL,
              "%s", missing ? missing : "(null)");
    free(missing);
    CHECK_CONTENT(r, "get_weather", "not json",
                  "Error: invalid arguments for tool \"get_weather\": the arguments are not valid JSON "
                  "(expected ident at line 1 column 2)");
    CHECK(echo->calls == 1);
    /* The host gets compact JSON, whatever the model's spacing. */
    CHECK_CONTENT(r, "get_weather", "{ \"city\" :\n \"Oslo\" }", "get_weather <- {\"city\":\"Oslo\"}");
    CHECK(echo->calls == 2);

    CHECK(frees == 0);
    tr_registry_free(r);
    CHECK_MSG(frees == 7, "%d of 7 host data freed", frees);
}

/* Registration that fails must still free the user data, once, before it returns; and change
 * nothing. */
static void expect_failed_registration(tr_registry *r, const char *tool_json, tr_tool_fn fn, int null_names,
                                       tr_status want, const char *what) {
    int frees = 0;
    char *names = NULL, *err = NULL;
    tr_status st = tr_registry_register_callable(r, tool_json, fn, new_host(&frees, r), free_host,
                                                 null_names ? NULL : &names, &err);
    CHECK_MSG(st == want, "%s: got %s (%s), want %s", what, tr_status_name(st), err ? err : "", tr_status_name(want));
    CHECK_MSG(err != NULL, "%s: no message", what);
    CHECK_MSG(names == NULL, "%s: names written on failure", what);
    CHECK_MSG(frees == 1, "%s: user data freed %d times", what, frees);
    tr_string_free(err);
}

static void test_free_counts(void) {
    tr_registry *r = NULL;
    OK(tr_registry_new("{\"discovery\": {}}", &r, &err));
    char *before = NULL;
    OK(tr_registry_get_schemas(r, NULL, &before, &err));

    /* Failed registrations. */
    expect_failed_registration(NULL, CITY_TOOL, echo_host, 0, TR_STATUS_NULL_ARGUMENT, "NULL registry");
    expect_failed_registration(r, NULL, echo_host, 0, TR_STATUS_NULL_ARGUMENT, "NULL tool_json");
    expect_failed_registration(r, CITY_TOOL, NULL, 0, TR_STATUS_NULL_ARGUMENT, "NULL fn");
    expect_failed_registration(r, CITY_TOOL, echo_host, 1, TR_STATUS_NULL_ARGUMENT, "NULL names_json_out");
    expect_failed_registration(r, "{\"name\": \"x\",", echo_host, 0, TR_STATUS_INVALID_JSON, "bad JSON");
    expect_failed_registration(r, "{\"name\": \"caf\xc3\"}", echo_host, 0, TR_STATUS_INVALID_UTF8, "invalid UTF-8");
    expect_failed_registration(r, "{\"description\": \"no name\"}", echo_host, 0, TR_STATUS_INVALID_ARGUMENT, "no name");
    expect_failed_registration(r, "[{\"name\": \"a\"}, {\"name\": \"b\"}]", echo_host, 0, TR_STATUS_INVALID_ARGUMENT,
                               "two tools");
    expect_failed_registration(r, "[]", echo_host, 0, TR_STATUS_INVALID_ARGUMENT, "no tool");
    expect_failed_registration(r, "{\"name\": \"discover_tools\"}", echo_host, 0, TR_STATUS_INVALID_ARGUMENT,
                               "reserved discover_tools");
    expect_failed_registration(r, "{\"name\": \"call_deferred\"}", echo_host, 0, TR_STATUS_INVALID_ARGUMENT,
                               "reserved call_deferred");
    char *after = NULL;
    OK(tr_registry_get_schemas(r, NULL, &after, &err));
    CHECK_STR_EQ(after, before);
    tr_string_free(before);
    tr_string_free(after);
    /* Failures with no free function at all are fine too. */
    {
        static int unowned;
        char *names = NULL, *err = NULL;
        CHECK(tr_registry_register_callable(r, "{\"name\": \"discover_tools\"}", echo_host, &unowned, NULL, &names,
                                            &err) == TR_STATUS_INVALID_ARGUMENT);
        CHECK(names == NULL);
        tr_string_free(err);
    }

    /* Unregister frees at once. */
    int a = 0;
    register_callable(r, "{\"name\": \"a\"}", echo_host, new_host(&a, r));
    CHECK(a == 0);
    OK(tr_registry_unregister(r, "a", &err));
    CHECK(a == 1);

    /* Replacing the tool frees the old function's data, with a function or without. */
    int b = 0, c = 0, d = 0;
    register_callable(r, "{\"name\": \"t\", \"description\": \"B\"}", echo_host, new_host(&b, r));
    register_callable(r, "{\"name\": \"t\", \"description\": \"C\"}", echo_host, new_host(&c, r));
    CHECK(b == 1 && c == 0);
    CHECK_CONTENT(r, "t", "{}", "t <- {}");
    register_plain(r, "{\"name\": \"t\", \"description\": \"plain now\"}");
    CHECK(c == 1);
    CHECK_CONTENT(r, "t", "{}",
                  "Error: tool \"t\" has no host function to run it (register it with one, or set a fallback)");
    register_callable(r, "{\"name\": \"t\", \"description\": \"D\"}", echo_host, new_host(&d, r));

    /* A failed registration under a taken name leaves the tool and its function alone. */
    expect_failed_registration(r, "[{\"name\": \"t\"}, {\"name\": \"t2\"}]", echo_host, 0, TR_STATUS_INVALID_ARGUMENT,
                               "two tools, one taken");
    CHECK(d == 0);
    CHECK_CONTENT(r, "t", "{}", "t <- {}");

    /* The fallback: replaced, removed (with data given alongside NULL), set again. */
    int f1 = 0, f2 = 0, g = 0, f3 = 0, h = 0;
    OK(tr_registry_set_fallback(r, route_host, new_host(&f1, r), free_host, &err));
    OK(tr_registry_set_fallback(r, route_host, new_host(&f2, r), free_host, &err));
    CHECK(f1 == 1 && f2 == 0);
    OK(tr_registry_set_fallback(r, NULL, new_host(&g, r), free_host, &err));
    CHECK(g == 1 && f2 == 1);
    OK(tr_registry_set_fallback(r, NULL, NULL, NULL, &err));
    OK(tr_registry_set_fallback(r, route_host, new_host(&f3, r), free_host, &err));
    {
        char *err = NULL;
        CHECK(tr_registry_set_fallback(NULL, route_host, new_host(&h, r), free_host, &err) ==
              TR_STATUS_NULL_ARGUMENT);
        CHECK(err != NULL);
        tr_string_free(err);
    }
    CHECK(h == 1);

    /* Never while a call is running: a host that unregisters its own tool, a fallback that
     * replaces itself. */
    int self = 0, fb = 0;
    register_callable(r, "{\"name\": \"self_remover\"}", self_unregister_host, new_host(&self, r));
    frees_seen_inside = -1;
    CHECK_CONTENT(r, "self_remover", "{}", "unregistered myself");
    CHECK_MSG(frees_seen_inside == 0, "freed %d times during its own call", frees_seen_inside);
    CHECK(self == 1);
    CHECK_CONTENT(r, "self_remover", "{}", "Error: tool \"self_remover\" is not registered");
    register_plain(r, "{\"name\": \"gateway_tool\"}");
    OK(tr_registry_set_fallback(r, self_replacing_fallback, new_host(&fb, r), free_host, &err));
    CHECK(f3 == 1);
    frees_seen_inside = -1;
    CHECK_CONTENT(r, "gateway_tool", "{}", "gateway_tool");
    CHECK_MSG(frees_seen_inside == 0, "fallback freed %d times during its own call", frees_seen_inside);
    CHECK(fb == 1);
    CHECK_CONTENT(r, "gateway_tool", "{}", "gateway_tool <- {}");

    /* The registry frees the rest: D and the last fallback. */
    CHECK(d == 0 && replaced_fallback_frees == 0);
    tr_registry_free(r);
    CHECK(d == 1);
    CHECK(replaced_fallback_frees == 1);
    CHECK(a == 1 && b == 1 && c == 1 && f1 == 1 && f2 == 1 && g == 1 && f3 == 1 && h == 1 && self == 1 && fb == 1);
}

/* The "callable" field of tool `name` in tr_registry_tools_status's answer: 1, 0, or -1. */
static int callable_of(const tr_registry *r, const char *name) {
    char *out = NULL;
    OK(tr_registry_tools_status(r, &out, &err));
    json_value *v = out ? json_parse(out, NULL, 0) : NULL;
    int result = -1;
    for (size_t i = 0; v && i < v->count; i++) {
        const json_value *t = json_at(v, i);
        if (strcmp(json_str(json_get(t, "name")), name) == 0) result = json_get(t, "callable")->boolean;
    }
    json_free(v);
    tr_string_free(out);
    return result;
}

static void test_fallback_routing(void) {
    tr_registry *r = NULL;
    OK(tr_registry_new(NULL, &r, &err));
    /* A gateway: definitions only for the remote tools, one local callable. */
    register_plain(r, "[{\"name\": \"mcp_search\", \"description\": \"Search the web.\","
                      "  \"parameters\": {\"type\": \"object\", \"properties\": {\"q\": {\"type\": \"string\"}}, \"required\": [\"q\"]}},"
                      " {\"name\": \"mcp_fetch\", \"namespace\": \"web\", \"description\": \"Fetch a page.\"}]");
    int local_frees = 0, route_frees = 0;
    host_data *local = new_host(&local_frees, r), *route = new_host(&route_frees, r);
    register_callable(r, "{\"name\": \"local\", \"description\": \"Local tool.\"}", echo_host, local);

    CHECK_CONTENT(r, "mcp_search", "{\"q\": \"rust\"}",
                  "Error: tool \"mcp_search\" has no host function to run it (register it with one, or set a fallback)");
    CHECK(callable_of(r, "mcp_search") == 0);
    CHECK(callable_of(r, "web-mcp_fetch") == 0);
    CHECK(callable_of(r, "local") == 1);

    OK(tr_registry_set_fallback(r, route_host, route, free_host, &err));
    CHECK(callable_of(r, "mcp_search") == 1);
    CHECK(callable_of(r, "web-mcp_fetch") == 1);
    const char *const names[] = {"mcp_search", "local", "web-mcp_fetch", "mcp_search", "not_registered"};
    const char *const args[] = {"{\"q\": \"rust\"}", "{\"x\": 1}", "{\"url\": \"https://example.com\"}", "{}", "{}"};
    json_value *v = execute(r, 5, names, args, "{\"parallel\": 3}");
    if (v) {
        CHECK_STR_EQ(content_of(v, 0), "routed mcp_search {\"q\":\"rust\"}");
        CHECK_STR_EQ(content_of(v, 1), "local <- {\"x\":1}");
        CHECK_STR_EQ(content_of(v, 2), "routed web-mcp_fetch {\"url\":\"https://example.com\"}");
        /* The tool's schema still applies before the fallback runs. */
        CHECK_MSG(starts_with(content_of(v, 3), "Error: invalid arguments for tool \"mcp_search\""), "%s",
                  content_of(v, 3) ? content_of(v, 3) : "(null)");
        /* Only registered tools reach the fallback. */
        CHECK_MSG(starts_with(content_of(v, 4), "Error: tool \"not_registered\" is not registered"), "%s",
                  content_of(v, 4) ? content_of(v, 4) : "(null)");
    }
    json_free(v);
    CHECK(read_counter(&route->calls) == 2);
    CHECK(read_counter(&local->calls) == 1);

    /* A disabled tool stays disabled, fallback or not. */
    OK(tr_registry_disable(r, "web", "the web gateway is down", &err));
    CHECK_CONTENT(r, "web-mcp_fetch", "{}", "Error: tool \"web-mcp_fetch\" is disabled: the web gateway is down");
    CHECK(read_counter(&route->calls) == 2);

    OK(tr_registry_set_fallback(r, NULL, NULL, NULL, &err));
    CHECK(route_frees == 1);
    CHECK(callable_of(r, "mcp_search") == 0);
    CHECK_CONTENT(r, "mcp_search", "{\"q\": \"again\"}",
                  "Error: tool \"mcp_search\" has no host function to run it (register it with one, or set a fallback)");
    tr_registry_free(r);
    CHECK(local_frees == 1);
}

/* ---- re-entrancy --------------------------------------------------------------------------- */

static int late_frees = 0;

/* Registers "late_<n>" (deferred, with an echo host) on its own registry, finds it through
 * discover_tools, runs it through a nested execute, and answers with the discover answer. */
static void installer_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    host_data *d = user_data;
    (void)tool_name;
    count_call(d);
    json_value *args = json_parse(args_json, NULL, 0);
    int n = (int)json_get(args, "n")->number;
    json_free(args);

    char tool[256], query[64], calls[256], want[64], *names = NULL, *hits = NULL, *messages = NULL, *err = NULL;
    snprintf(tool, sizeof tool,
             "{\"name\": \"late_%d\", \"description\": \"Late tool number %d, added during a call.\","
             " \"metadata\": {\"defer\": true, \"tags\": [\"reentrancy\"]}}", n, n);
    snprintf(query, sizeof query, "{\"query\": \"late_%d\"}", n);
    snprintf(calls, sizeof calls,
             "[{\"id\": \"n\", \"type\": \"function\", \"function\": {\"name\": \"late_%d\", \"arguments\": \"{}\"}}]", n);
    snprintf(want, sizeof want, "\"content\":\"late_%d <- {}\"", n);
    if (tr_registry_register_callable(d->registry, tool, echo_host, new_host(&late_frees, NULL), free_host, &names,
                                      &err) != TR_STATUS_OK ||
        tr_registry_call(d->registry, "discover_tools", query, &hits, &err) != TR_STATUS_OK ||
        tr_registry_execute(d->registry, calls, NULL, &messages, &err) != TR_STATUS_OK) {
        tr_call_fail(call, err ? err : "no message");
    } else if (strstr(messages, want) == NULL) {
        tr_call_fail(call, messages);
    } else {
        tr_call_return(call, hits);
    }
    tr_string_free(names);
    tr_string_free(hits);
    tr_string_free(messages);
    tr_string_free(err);
}

static void test_reentrancy(const char *options, int first, int count) {
    tr_registry *r = NULL;
    OK(tr_registry_new("{\"discovery\": {}}", &r, &err));
    int frees = 0;
    late_frees = 0;
    host_data *installer = new_host(&frees, r);
    register_callable(r, "{\"name\": \"installer\", \"description\": \"Installs a tool.\","
                         " \"parameters\": {\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\"}}, \"required\": [\"n\"]}}",
                      installer_host, installer);
    const char *names[8];
    char args[8][32];
    const char *arg_ptrs[8];
    for (int i = 0; i < count; i++) {
        names[i] = "installer";
        snprintf(args[i], sizeof args[i], "{\"n\": %d}", first + i);
        arg_ptrs[i] = args[i];
    }
    json_value *v = execute(r, (size_t)count, names, arg_ptrs, options);
    for (int i = 0; v && i < count; i++) {
        /* discover_tools by exact name: that tool alone, score 1.0, with its schema. */
        char want[64];
        snprintf(want, sizeof want, "[{\"name\":\"late_%d\",", first + i);
        const char *content = content_of(v, (size_t)i);
        CHECK_MSG(starts_with(content, want) && strstr(content, "\"score\":1.0") != NULL, "%s: call %d: %s", options,
                  i, content ? content : "(null)");
    }
    json_free(v);
    CHECK(read_counter(&installer->calls) == count);

    /* Afterwards the new tools are registered, discoverable and callable. */
    for (int i = 0; i < count; i++) {
        char query[64], want[64], name[32], *hits = NULL;
        snprintf(query, sizeof query, "{\"query\": \"late_%d\"}", first + i);
        snprintf(want, sizeof want, "[{\"name\":\"late_%d\",", first + i);
        OK(tr_registry_call(r, "discover_tools", query, &hits, &err));
        CHECK_MSG(starts_with(hits, want), "%s", hits ? hits : "(null)");
        tr_string_free(hits);
        snprintf(name, sizeof name, "late_%d", first + i);
        snprintf(want, sizeof want, "late_%d <- {\"k\":true}", first + i);
        CHECK_CONTENT(r, name, "{\"k\": true}", want);
    }
    char *hits = NULL;
    OK(tr_registry_call(r, "discover_tools", "{\"query\": \"late tool added during a call\", \"top_k\": 10}", &hits,
                        &err));
    json_value *found = hits ? json_parse(hits, NULL, 0) : NULL;
    CHECK_MSG(found && found->count == (size_t)count, "%s", hits ? hits : "(null)");
    json_free(found);
    tr_string_free(hits);
    tr_registry_free(r);
    CHECK(frees == 1);
    CHECK_MSG(late_frees == count, "%d of %d late tools' data freed", late_frees, count);
}

int main(void) {
    test_answers();
    test_free_counts();
    test_fallback_routing();
    test_reentrancy(NULL, 1, 1);
    test_reentrancy("{\"parallel\": 4}", 10, 4);
    /* More calls than threads: the pool takes them in turns. */
    test_reentrancy("{\"parallel\": 4}", 20, 8);
    return test_exit_code("test_execute");
}
