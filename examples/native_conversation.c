/*
 * Provider-native deferred loading through a conversation handle, against two recorded models
 * (no network): an Anthropic Messages conversation and an OpenAI Responses conversation.
 *
 * The agent registers its tools with the functions that run them, marks the rarely used ones
 * deferred, and opens a conversation in "native" mode. Each turn it sends the model the tools of
 * tr_conversation_tools (every tool, deferred ones with "defer_loading": true, plus the search
 * tool; the provider keeps deferred definitions out of the prompt until they are loaded), and
 * passes the model's reply to tr_conversation_execute, which answers searches in the provider's
 * own shape (Anthropic: a tool_result of tool_reference blocks; Responses: a tool_search_output
 * item carrying the found definitions) and runs the other calls through their host functions.
 * Here the model searches, then calls the tool it found, then answers.
 *
 * The output shows, per turn, the request's tools (count, fingerprint, names; a deferred tool is
 * marked with *) and the messages sent back. The fingerprint changes exactly when the tools bytes
 * do: a stable one means the provider's prompt cache holds.
 *
 * Build against an installed toolregistry:
 *   cc native_conversation.c $(pkg-config --cflags --libs toolregistry) -o native_conversation
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolregistry.h"

/* ---- the recorded models ------------------------------------------------------------------ */

/* Anthropic: the assistant messages of three replies (stop_reason "tool_use", "tool_use",
 * "end_turn"). A literal split over lines is parenthesized: one element, not a missing comma
 * (clang's -Wstring-concatenation). */
static const char *const ANTHROPIC_REPLIES[] = {
    ("{\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"Let me find a weather tool.\"},"
    " {\"type\": \"tool_use\", \"id\": \"toolu_01\", \"name\": \"discover_tools\","
    " \"input\": {\"query\": \"weather forecast for a city\"}}]}"),
    ("{\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"toolu_02\", \"name\": \"get_weather\","
    " \"input\": {\"city\": \"Oslo\"}}]}"),
    "{\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"Light rain in Oslo, 12 C.\"}]}",
};

/* OpenAI Responses: the `output` of three responses. */
static const char *const RESPONSES_REPLIES[] = {
    ("[{\"type\": \"tool_search_call\", \"id\": \"ts_01\", \"call_id\": \"call_s1\", \"execution\": \"client\","
    " \"status\": \"completed\", \"arguments\": {\"query\": \"send an email\"}}]"),
    ("[{\"type\": \"function_call\", \"id\": \"fc_01\", \"call_id\": \"call_1\", \"name\": \"send_email\","
    " \"arguments\": \"{\\\"to\\\": \\\"ada@example.com\\\", \\\"subject\\\": \\\"Q3 report\\\"}\"}]"),
    ("[{\"type\": \"message\", \"role\": \"assistant\", \"content\": [{\"type\": \"output_text\","
    " \"text\": \"Done: the Q3 report is on its way to ada@example.com.\"}]}]"),
};

/* ---- the host's tools --------------------------------------------------------------------- */

/* Each tool with the canned result its host function returns (get_time is a core tool, the
 * others are deferred). */
static const struct {
    const char *tool_json;
    const char *result;
} TOOLS[] = {
    {"{\"name\": \"get_time\", \"description\": \"Current time in UTC.\","
     " \"parameters\": {\"type\": \"object\", \"properties\": {}}}",
     "2026-12-01T05:00:00Z"},
    {"{\"name\": \"get_weather\", \"description\": \"Weather forecast for a city.\","
     " \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}},"
     " \"required\": [\"city\"]}, \"metadata\": {\"defer\": true}}",
     "{\"forecast\": \"light rain\", \"celsius\": 12}"},
    {"{\"name\": \"send_email\", \"description\": \"Send an email to a recipient.\","
     " \"parameters\": {\"type\": \"object\", \"properties\": {\"to\": {\"type\": \"string\"},"
     " \"subject\": {\"type\": \"string\"}}, \"required\": [\"to\"]}, \"metadata\": {\"defer\": true}}",
     "{\"status\": \"sent\"}"},
    {"{\"name\": \"create_invoice\", \"description\": \"Create an invoice for a customer.\","
     " \"parameters\": {\"type\": \"object\", \"properties\": {\"customer\": {\"type\": \"string\"}}},"
     " \"metadata\": {\"defer\": true}}",
     "{\"invoice\": \"INV-1\"}"},
};

/* Every tool runs here: it prints the call and returns its canned result (user_data). */
static void run_tool(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    printf("  [host] %s(%s)\n", tool_name, args_json);
    tr_call_return(call, (const char *)user_data);
}

static int ok(const char *what, tr_status status, char *err) {
    if (status == TR_STATUS_OK) return 1;
    fprintf(stderr, "%s: %s: %s\n", what, tr_status_name(status), err ? err : "");
    tr_string_free(err);
    return 0;
}

/* ---- printing the request's tools ---------------------------------------------------------- */

/* Prints the tools array of a tr_conversation_tools answer as "N tools, fingerprint F: names",
 * reading the top-level "name" (or "type" for a tool without a name) and "defer_loading" of each
 * tool with a tiny JSON scanner (the answer is compact JSON written by the library). */
static void print_tools(const char *answer) {
    const char *p = strstr(answer, "\"tools\":[");
    const char *fp = strstr(answer, "\"fingerprint\":\"");
    int depth = 0, count = 0;
    char name[128] = "", type[64] = "";
    int deferred = 0;
    printf("  tools: ");
    for (p = p ? p + 8 : ""; *p; p++) {
        if (*p == '[' || *p == '{') {
            depth++;
            continue;
        }
        if (*p == ']' || *p == '}') {
            if (--depth == 1) { /* the end of one tool */
                printf("%s%s%s", count ? ", " : "", name[0] ? name : type, deferred ? "*" : "");
                count++;
                name[0] = type[0] = '\0';
                deferred = 0;
            }
            if (depth == 0) break;
            continue;
        }
        if (*p != '"') continue;
        const char *start = ++p; /* a string: skip it, and read it when it is a key of a tool */
        while (*p && *p != '"') p += *p == '\\' && p[1] ? 2 : 1;
        size_t len = (size_t)(p - start);
        if (depth != 2 || p[1] != ':') continue;
        char *dest = NULL;
        size_t cap = 0;
        if (len == 4 && strncmp(start, "name", 4) == 0) dest = name, cap = sizeof name;
        else if (len == 4 && strncmp(start, "type", 4) == 0) dest = type, cap = sizeof type;
        else if (len == 13 && strncmp(start, "defer_loading", 13) == 0) deferred = strncmp(p + 2, "true", 4) == 0;
        if (dest && p[2] == '"') {
            const char *v = p + 3, *end = strchr(v, '"');
            size_t n = end ? (size_t)(end - v) : 0;
            if (n >= cap) n = cap - 1;
            memcpy(dest, v, n);
            dest[n] = '\0';
        }
    }
    printf("\n  (%d tools, fingerprint %.16s...)\n", count, fp ? fp + 15 : "?");
}

/* ---- one conversation ------------------------------------------------------------------------ */

static int converse(tr_registry *r, const char *title, const char *options, const char *const *replies, size_t turns) {
    printf("== %s (%s)\n", title, options);
    tr_conversation *conv = NULL;
    char *err = NULL;
    if (!ok("tr_conversation_new", tr_conversation_new(r, options, &conv, &err), err)) return 0;
    int good = 1;
    for (size_t turn = 0; turn < turns && good; turn++) {
        char *tools = NULL, *messages = NULL;
        err = NULL;
        good = ok("tr_conversation_tools", tr_conversation_tools(conv, &tools, &err), err);
        if (!good) break;
        printf("turn %zu: request\n", turn + 1);
        print_tools(tools);
        tr_string_free(tools);
        printf("  model: %s\n", replies[turn]);
        err = NULL;
        good = ok("tr_conversation_execute", tr_conversation_execute(conv, replies[turn], NULL, &messages, &err), err);
        /* A reply without tool calls gives "[]": the conversation is over. */
        if (good) printf("  send back: %s\n", messages);
        tr_string_free(messages);
    }
    char *loaded = NULL;
    err = NULL;
    if (good && ok("tr_conversation_loaded", tr_conversation_loaded(conv, &loaded, &err), err))
        printf("loaded: %s\n\n", loaded);
    tr_string_free(loaded);
    tr_conversation_free(conv);
    return good;
}

int main(void) {
    tr_registry *r = NULL;
    char *err = NULL, *names = NULL;
    if (!ok("tr_registry_new", tr_registry_new("{\"discovery\": {}}", &r, &err), err)) return 1;
    /* Each tool with its host function (no free function: the results are static strings). */
    int good = 1;
    for (size_t i = 0; good && i < sizeof TOOLS / sizeof TOOLS[0]; i++) {
        err = NULL;
        good = ok("register",
                  tr_registry_register_callable(r, TOOLS[i].tool_json, run_tool, (void *)TOOLS[i].result, NULL, &names, &err),
                  err);
        tr_string_free(names);
        names = NULL;
    }
    /* top_k 2: a search loads at most two tools. */
    good = good && converse(r, "Anthropic Messages", "{\"api_format\": \"anthropic\", \"mode\": \"native\", \"top_k\": 2}",
                            ANTHROPIC_REPLIES, sizeof ANTHROPIC_REPLIES / sizeof ANTHROPIC_REPLIES[0]);
    good = good && converse(r, "OpenAI Responses",
                            "{\"api_format\": \"openai-responses\", \"mode\": \"native\", \"top_k\": 2}", RESPONSES_REPLIES,
                            sizeof RESPONSES_REPLIES / sizeof RESPONSES_REPLIES[0]);
    tr_registry_free(r);
    return good ? 0 : 1;
}
