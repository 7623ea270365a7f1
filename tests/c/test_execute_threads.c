/*
 * Tool-call execution under concurrency from C with pthreads: 8 threads execute batches with
 * {"parallel": 4} (OpenAI chat and Anthropic shapes in turn) while 2 threads register, replace and
 * unregister callables, for argv[1] seconds (default 2) and at least MIN_OPS operations per thread.
 * Every result must belong to its own call: the right id, and an echo of that call's own arguments
 * (or, for a churning tool that is gone at that moment, "not registered"). Afterwards every host's
 * user data has been freed exactly once.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "test_util.h"
#include "toolregistry.h"

#define EXECUTORS 8
#define CHURNERS 2
#define STABLE_TOOLS 4
#define CHURN_TOOLS 3
#define BATCH 6
#define MIN_OPS 5
#define GIVE_UP_SECONDS 120.0

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long registrations = 0, frees = 0;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The user data: a heap block the library frees through count_free. */
static void *new_data(void) {
    pthread_mutex_lock(&counter_lock);
    registrations++;
    pthread_mutex_unlock(&counter_lock);
    void *p = malloc(16);
    if (!p) abort();
    return p;
}

static void count_free(void *user_data) {
    pthread_mutex_lock(&counter_lock);
    frees++;
    pthread_mutex_unlock(&counter_lock);
    free(user_data);
}

static void echo_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    (void)user_data;
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s <- %s", tool_name, args_json);
    tr_call_return(call, sb.data);
    sb_free(&sb);
}

static char *tool_json(const char *name) {
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "{\"name\": \"%s\", \"description\": \"Echo for the stress test.\", \"parameters\": {\"type\": "
                   "\"object\", \"properties\": {\"seq\": {\"type\": \"string\"}}, \"required\": [\"seq\"]}}",
              name);
    return sb.data;
}

static int register_echo(tr_registry *r, const char *name, char **err) {
    char *json = tool_json(name), *names = NULL;
    tr_status st = tr_registry_register_callable(r, json, echo_host, new_data(), count_free, &names, err);
    free(json);
    tr_string_free(names);
    return st == TR_STATUS_OK;
}

typedef struct {
    tr_registry *registry;
    int id;
    double deadline;
    long ops;
    long results;
    long failures;
    char first_failure[512];
} worker;

static int keep_going(const worker *w) {
    double now = now_seconds();
    return now < w->deadline || (w->ops < MIN_OPS && now < w->deadline + GIVE_UP_SECONDS);
}

static void fail(worker *w, const char *what, const char *detail) {
    if (w->failures++ == 0)
        snprintf(w->first_failure, sizeof w->first_failure, "%s: %s", what, detail ? detail : "");
}

/* Checks one result against the call it must answer. */
static void check_result(worker *w, const char *name, const char *seq, const char *id, const char *got_id,
                         const char *content) {
    char want[160];
    int n;
    if (!got_id || strcmp(got_id, id) != 0) {
        fail(w, "result for another call", got_id);
        return;
    }
    /* A truncated expectation could match a wrong answer's prefix: refuse it instead. */
    n = snprintf(want, sizeof want, "%s <- {\"seq\":\"%s\"}", name, seq);
    if (n < 0 || (size_t)n >= sizeof want) {
        fail(w, "expected content does not fit", name);
        return;
    }
    if (content && strcmp(content, want) == 0) return;
    if (strncmp(name, "churn", 5) == 0) {
        n = snprintf(want, sizeof want, "Error: tool \"%s\" is not registered", name);
        if (n < 0 || (size_t)n >= sizeof want) {
            fail(w, "expected error does not fit", name);
            return;
        }
        if (content && strncmp(content, want, strlen(want)) == 0) return;
    }
    fail(w, "wrong content", content);
}

static void *executor(void *arg) {
    worker *w = arg;
    unsigned seed = (unsigned)w->id * 7919u + 11u;
    for (long iter = 0; keep_going(w); iter++) {
        char names[BATCH][32], seqs[BATCH][48], ids[BATCH][48];
        int anthropic = iter % 2 == 1;
        strbuf calls;
        sb_init(&calls);
        sb_puts(&calls, anthropic ? "{\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"On it.\"}"
                                  : "{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [");
        for (int i = 0; i < BATCH; i++) {
            seed = seed * 1103515245u + 12345u;
            if (seed % 3 == 0)
                snprintf(names[i], sizeof names[i], "churn%u_%u", (seed >> 8) % CHURNERS, (seed >> 12) % CHURN_TOOLS);
            else
                snprintf(names[i], sizeof names[i], "stable_%u", (seed >> 8) % STABLE_TOOLS);
            snprintf(seqs[i], sizeof seqs[i], "t%d-%ld-%d", w->id, iter, i);
            snprintf(ids[i], sizeof ids[i], "id_%d_%ld_%d", w->id, iter, i);
            if (anthropic)
                sb_printf(&calls, ", {\"type\": \"tool_use\", \"id\": \"%s\", \"name\": \"%s\", \"input\": {\"seq\": \"%s\"}}",
                          ids[i], names[i], seqs[i]);
            else
                sb_printf(&calls, "%s{\"id\": \"%s\", \"type\": \"function\", \"function\": {\"name\": \"%s\","
                                  " \"arguments\": \"{\\\"seq\\\": \\\"%s\\\"}\"}}",
                          i ? ", " : "", ids[i], names[i], seqs[i]);
        }
        sb_puts(&calls, "]}");
        char *out = NULL, *err = NULL;
        tr_status st = tr_registry_execute(w->registry, calls.data, "{\"parallel\": 4}", &out, &err);
        sb_free(&calls);
        if (st != TR_STATUS_OK) {
            fail(w, tr_status_name(st), err);
        } else {
            json_value *v = json_parse(out, NULL, 0);
            /* Anthropic: one user message whose content holds the tool_result blocks. */
            const json_value *results = anthropic ? json_get(json_at(v, 0), "content") : v;
            if (!v || !results || results->count != BATCH || (anthropic && v->count != 1)) {
                fail(w, "bad messages", out);
            } else {
                for (int i = 0; i < BATCH; i++) {
                    const json_value *m = json_at(results, (size_t)i);
                    const char *got_id = json_str(json_get(m, anthropic ? "tool_use_id" : "tool_call_id"));
                    check_result(w, names[i], seqs[i], ids[i], got_id, json_str(json_get(m, "content")));
                    w->results++;
                }
            }
            json_free(v);
        }
        tr_string_free(out);
        tr_string_free(err);
        w->ops++;
    }
    return NULL;
}

/* Registers, replaces (a second registration of a present tool) and unregisters its own tools. */
static void *churner(void *arg) {
    worker *w = arg;
    int present[CHURN_TOOLS] = {0};
    unsigned seed = (unsigned)w->id * 104729u + 5u;
    while (keep_going(w)) {
        seed = seed * 1103515245u + 12345u;
        int k = (int)((seed >> 8) % CHURN_TOOLS);
        char name[32], *err = NULL;
        snprintf(name, sizeof name, "churn%d_%d", w->id - EXECUTORS, k);
        if (!present[k] || seed % 3 == 0) {
            if (!register_echo(w->registry, name, &err)) fail(w, "register", err);
            present[k] = 1;
        } else {
            if (tr_registry_unregister(w->registry, name, &err) != TR_STATUS_OK) fail(w, "unregister", err);
            present[k] = 0;
        }
        tr_string_free(err);
        w->ops++;
    }
    return NULL;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    tr_registry *r = NULL;
    OK(tr_registry_new(NULL, &r, &err));
    for (int i = 0; i < STABLE_TOOLS; i++) {
        char name[32], *err = NULL;
        snprintf(name, sizeof name, "stable_%d", i);
        CHECK_MSG(register_echo(r, name, &err), "%s", err ? err : "");
        tr_string_free(err);
    }

    worker workers[EXECUTORS + CHURNERS];
    pthread_t threads[EXECUTORS + CHURNERS];
    double started = now_seconds(), deadline = started + seconds;
    for (int i = 0; i < EXECUTORS + CHURNERS; i++) {
        memset(&workers[i], 0, sizeof workers[i]);
        workers[i].registry = r;
        workers[i].id = i;
        workers[i].deadline = deadline;
        CHECK(pthread_create(&threads[i], NULL, i < EXECUTORS ? executor : churner, &workers[i]) == 0);
    }
    long batches = 0, results = 0, mutations = 0;
    for (int i = 0; i < EXECUTORS + CHURNERS; i++) {
        pthread_join(threads[i], NULL);
        CHECK_MSG(workers[i].failures == 0, "thread %d: %ld failures, first: %s", i, workers[i].failures,
                  workers[i].first_failure);
        CHECK_MSG(workers[i].ops >= MIN_OPS, "thread %d did only %ld operations", i, workers[i].ops);
        if (i < EXECUTORS) {
            batches += workers[i].ops;
            results += workers[i].results;
        } else {
            mutations += workers[i].ops;
        }
    }
    printf("test_execute_threads: %.1f s, %d executors: %ld batches, %ld results; %d churners: %ld mutations\n",
           now_seconds() - started, EXECUTORS, batches, results, CHURNERS, mutations);
    CHECK(results == batches * BATCH);

    tr_registry_free(r);
    CHECK_MSG(frees == registrations, "%ld of %ld host data freed", frees, registrations);
    return test_exit_code("test_execute_threads");
}
