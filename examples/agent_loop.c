/*
 * A complete tool-calling loop in C, against a recorded model (no network).
 *
 * The agent registers its tools with the functions that run them, keeps the rarely used ones
 * deferred, and sends the model only the core tools plus discover_tools, with one-line summaries
 * of the deferred tools in the system prompt. Each turn, the model's reply goes to
 * tr_registry_execute, which runs every tool call (discover_tools in the library, the others
 * through their host functions) and answers with the messages to send back. The loop ends when
 * the model stops asking for tools.
 *
 * The model here is a recording of three OpenAI Chat Completions replies (finish_reason and
 * message): it calls discover_tools, then the deferred send_email it found, then answers. A real
 * agent would POST the conversation to the provider instead of reading the next recording.
 *
 * Build against an installed toolregistry:
 *   cc agent_loop.c $(pkg-config --cflags --libs toolregistry) -o agent_loop
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolregistry.h"

/* ---- the recorded model ------------------------------------------------------------------- */

typedef struct {
    const char *finish_reason; /* "tool_calls" while the model wants tools, then "stop" */
    const char *message;       /* choices[0].message, as the API returned it */
} model_reply;

static const model_reply RECORDED_REPLIES[] = {
    {"tool_calls",
     "{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"call_1\", \"type\": \"function\","
     " \"function\": {\"name\": \"discover_tools\", \"arguments\": \"{\\\"query\\\": \\\"send an email\\\", \\\"top_k\\\": 2}\"}}]}"},
    {"tool_calls",
     "{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"call_2\", \"type\": \"function\","
     " \"function\": {\"name\": \"send_email\", \"arguments\": \"{\\\"to\\\": [\\\"ada@example.com\\\"],"
     " \\\"subject\\\": \\\"Q3 report\\\", \\\"body\\\": \\\"The report is attached.\\\"}\"}}]}"},
    {"stop", "{\"role\": \"assistant\", \"content\": \"Done: I emailed the Q3 report to ada@example.com.\"}"},
};

/* The model's next reply. (A real agent sends `conversation` and `tools` to the provider.) */
static const model_reply *ask_model(size_t turn, const char *conversation, const char *tools) {
    (void)conversation;
    (void)tools;
    return turn < sizeof RECORDED_REPLIES / sizeof RECORDED_REPLIES[0] ? &RECORDED_REPLIES[turn] : NULL;
}

/* ---- host functions ----------------------------------------------------------------------- */

/* send_email's arguments arrive checked against its schema, as compact JSON. */
static void send_email(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    int *sent = user_data;
    (void)tool_name;
    printf("  [host] send_email(%s)\n", args_json);
    char result[64];
    snprintf(result, sizeof result, "{\"status\": \"sent\", \"message_id\": \"msg-%d\"}", ++*sent);
    tr_call_return(call, result);
}

static void read_file(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    (void)user_data;
    (void)tool_name;
    (void)args_json;
    tr_call_fail(call, "this demo has no file system");
}

/* ---- a growable string for the conversation ------------------------------------------------ */

typedef struct {
    char *data;
    size_t len, cap;
} buffer;

static void append(buffer *b, const char *s) {
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        char *grown = realloc(b->data, b->cap);
        if (!grown) abort();
        b->data = grown;
    }
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

/* Appends the elements of a JSON array text ("[a,b]" gives ",a,b"). */
static void append_elements(buffer *b, const char *array) {
    size_t n = strlen(array);
    if (n <= 2) return;
    append(b, ",");
    char *inner = malloc(n - 1);
    if (!inner) abort();
    memcpy(inner, array + 1, n - 2);
    inner[n - 2] = '\0';
    append(b, inner);
    free(inner);
}

static int ok(tr_status status, char *err) {
    if (status == TR_STATUS_OK) return 1;
    fprintf(stderr, "%s: %s\n", tr_status_name(status), err ? err : "");
    tr_string_free(err);
    return 0;
}

int main(void) {
    tr_registry *registry = NULL;
    char *err = NULL, *names = NULL, *summaries = NULL, *tools = NULL;
    int sent = 0, exit_code = 1;
    buffer conversation = {NULL, 0, 0};

    if (!ok(tr_registry_new("{\"discovery\": {}}", &registry, &err), err)) return 1;
    if (!ok(tr_registry_register_callable(registry,
                                          "{\"name\": \"read_file\", \"description\": \"Read a file from disk.\","
                                          " \"parameters\": {\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}},"
                                          " \"required\": [\"path\"]}}",
                                          read_file, NULL, NULL, &names, &err), err))
        goto done;
    tr_string_free(names);
    names = NULL;
    if (!ok(tr_registry_register_callable(registry,
                                          "{\"name\": \"send_email\", \"description\": \"Send an email to recipients.\","
                                          " \"parameters\": {\"type\": \"object\", \"properties\": {"
                                          "\"to\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}},"
                                          " \"subject\": {\"type\": \"string\"}, \"body\": {\"type\": \"string\"}},"
                                          " \"required\": [\"to\", \"subject\"]},"
                                          " \"metadata\": {\"defer\": true, \"tags\": [\"network\"]}}",
                                          send_email, &sent, NULL, &names, &err), err))
        goto done;
    tr_string_free(names);
    names = NULL;
    /* A deferred tool with no host function: a gateway would route it with a fallback. */
    if (!ok(tr_registry_register(registry,
                                 "{\"name\": \"convert_currency\", \"description\": \"Convert an amount between currencies.\","
                                 " \"metadata\": {\"defer\": true}}",
                                 &names, &err), err))
        goto done;

    /* What the model is given: the core tools and the built-ins, and the deferred tools' summaries. */
    if (!ok(tr_registry_get_schemas(registry, "{\"include_deferred\": false}", &tools, &err), err)) goto done;
    if (!ok(tr_registry_deferred_summaries(registry, &summaries, &err), err)) goto done;
    printf("tools:    %s\n", tools);
    printf("deferred: %s\n", summaries);
    append(&conversation, "[{\"role\": \"system\", \"content\": \"Find deferred tools with discover_tools.\"},"
                          " {\"role\": \"user\", \"content\": \"Email the Q3 report to ada@example.com.\"}");

    for (size_t turn = 0;; turn++) {
        const model_reply *reply = ask_model(turn, conversation.data, tools);
        if (!reply) {
            fprintf(stderr, "the recording ran out before the model finished\n");
            goto done;
        }
        printf("\nturn %zu, model (%s): %s\n", turn + 1, reply->finish_reason, reply->message);
        append(&conversation, ", ");
        append(&conversation, reply->message);
        if (strcmp(reply->finish_reason, "tool_calls") != 0) break;

        /* Run every call of the turn; the answer is the messages for the next request. */
        char *messages = NULL;
        if (!ok(tr_registry_execute(registry, reply->message, NULL, &messages, &err), err)) goto done;
        printf("send back: %s\n", messages);
        append_elements(&conversation, messages);
        tr_string_free(messages);
    }
    append(&conversation, "]");
    printf("\nconversation: %s\n", conversation.data);
    printf("emails sent: %d\n", sent);
    exit_code = sent == 1 ? 0 : 1;

done:
    free(conversation.data);
    tr_string_free(names);
    tr_string_free(summaries);
    tr_string_free(tools);
    tr_registry_free(registry);
    return exit_code;
}
