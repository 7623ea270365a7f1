/*
 * One conversation from several threads: 4 threads call tr_conversation_tools and
 * tr_conversation_execute on the same conversation (Anthropic, native mode) while 1 thread
 * registers deferred tools on its registry, for argv[2] seconds (default 2) and at least MIN_OPS
 * operations per thread. Every execute answer is exactly the expected messages; every tools
 * answer is one consistent snapshot (native mode lists every enabled tool in registration order,
 * so the last tool is extra_<k-1> when k extra tools are listed, and a thread never sees k
 * shrink); afterwards the conversation has loaded get_weather exactly once.
 * Usage: test_conversation_threads CORPUS_DIR [SECONDS]
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus.h"
#include "json.h"
#include "test_util.h"
#include "toolregistry.h"

#define WORKERS 4
#define MIN_OPS 5
#define MAX_EXTRA 400
#define GIVE_UP_SECONDS 120.0

static const char *const CALLS =
    "[{\"type\": \"tool_use\", \"id\": \"toolu_1\", \"name\": \"discover_tools\", \"input\": {\"query\": "
    "\"get_weather\"}}, {\"type\": \"tool_use\", \"id\": \"toolu_2\", \"name\": \"get_time\", \"input\": {}}]";
static const char *const EXPECTED =
    "[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":[{\"type\":"
    "\"tool_reference\",\"tool_name\":\"get_weather\"}]},{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_2\","
    "\"content\":\"get_time <- {}\"}]}]";

static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;
static double deadline, give_up;
static volatile int workers_left = WORKERS;
/* Workers keep going until the registrar has registered one tool: on a loaded machine the
 * registrar thread may not get scheduled before the workers' time is up. */
static volatile int registered = 0;
static size_t base_tools = 0;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CHECK from several threads: the counters are shared. */
#define TCHECK_MSG(cond, ...)                     \
    do {                                          \
        pthread_mutex_lock(&check_lock);          \
        CHECK_MSG(cond, __VA_ARGS__);             \
        pthread_mutex_unlock(&check_lock);        \
    } while (0)

typedef struct {
    tr_conversation *conv;
    int id;
    long ops;
} worker;

/* The number of extra_N tools in a tools answer, checked to be a consistent snapshot; -1 if bad. */
static long extra_count(const char *text) {
    json_value *v = text ? json_parse(text, NULL, 0) : NULL;
    const json_value *tools = json_get(v, "tools");
    const char *fp = json_str(json_get(v, "fingerprint"));
    long k = -1;
    if (tools && tools->type == JSON_ARRAY && tools->count >= base_tools && fp && strlen(fp) == 64) {
        k = (long)(tools->count - base_tools);
        if (k > 0) {
            char want[32];
            snprintf(want, sizeof want, "extra_%ld", k - 1);
            const char *last = json_str(json_get(json_at(tools, tools->count - 1), "name"));
            if (!last || strcmp(last, want) != 0) k = -1;
        }
    }
    json_free(v);
    return k;
}

static int registered_any(void) {
    pthread_mutex_lock(&check_lock);
    int any = registered > 0;
    pthread_mutex_unlock(&check_lock);
    return any;
}

static void *work(void *arg) {
    worker *w = arg;
    long seen = 0;
    while ((now_seconds() < deadline || w->ops < MIN_OPS || !registered_any()) && now_seconds() < give_up) {
        char *out = NULL, *err = NULL;
        if ((w->ops + w->id) % 2 == 0) {
            tr_status st = tr_conversation_tools(w->conv, &out, &err);
            long k = st == TR_STATUS_OK ? extra_count(out) : -1;
            TCHECK_MSG(k >= seen, "worker %d: tools %s (%s): %ld extra tools after %ld: %.200s", w->id,
                       tr_status_name(st), err ? err : "", k, seen, out ? out : "");
            if (k > seen) seen = k;
        } else {
            tr_status st = tr_conversation_execute(w->conv, CALLS, NULL, &out, &err);
            TCHECK_MSG(st == TR_STATUS_OK && strcmp(out, EXPECTED) == 0, "worker %d: execute %s (%s): %s", w->id,
                       tr_status_name(st), err ? err : "", out ? out : "");
        }
        tr_string_free(out);
        tr_string_free(err);
        w->ops++;
    }
    pthread_mutex_lock(&check_lock);
    workers_left--;
    pthread_mutex_unlock(&check_lock);
    return NULL;
}

static void *registrar(void *arg) {
    tr_registry *r = arg;
    for (int i = 0; i < MAX_EXTRA; i++) {
        pthread_mutex_lock(&check_lock);
        int left = workers_left;
        pthread_mutex_unlock(&check_lock);
        if (left == 0) break;
        char tool[256];
        snprintf(tool, sizeof tool,
                 "{\"name\": \"extra_%d\", \"description\": \"Extra tool number %d.\", \"metadata\": {\"defer\": true}}", i,
                 i);
        char *names = NULL, *err = NULL;
        tr_status st = tr_registry_register(r, tool, &names, &err);
        TCHECK_MSG(st == TR_STATUS_OK, "register extra_%d: %s", i, err ? err : "");
        pthread_mutex_lock(&check_lock);
        if (st == TR_STATUS_OK) registered++;
        pthread_mutex_unlock(&check_lock);
        tr_string_free(names);
        tr_string_free(err);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_conversation_threads CORPUS_DIR [SECONDS]\n");
        return 2;
    }
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    tr_registry *r = corpus_registry(argv[1]);
    CHECK(r != NULL);
    if (!r) return test_exit_code("test_conversation_threads");
    tr_conversation *conv = NULL;
    OK(tr_conversation_new(r, "{\"api_format\": \"anthropic\", \"mode\": \"native\"}", &conv, &err));
    char *first = NULL;
    OK(tr_conversation_tools(conv, &first, &err));
    json_value *v = first ? json_parse(first, NULL, 0) : NULL;
    base_tools = json_get(v, "tools") ? json_get(v, "tools")->count : 0;
    CHECK(base_tools == 5); /* discover_tools and the fixture's four tools */
    json_free(v);
    tr_string_free(first);

    deadline = now_seconds() + seconds;
    give_up = now_seconds() + GIVE_UP_SECONDS;
    pthread_t threads[WORKERS + 1];
    worker workers[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i] = (worker){conv, i, 0};
        CHECK(pthread_create(&threads[i], NULL, work, &workers[i]) == 0);
    }
    CHECK(pthread_create(&threads[WORKERS], NULL, registrar, r) == 0);
    for (int i = 0; i <= WORKERS; i++) pthread_join(threads[i], NULL);
    long ops = 0;
    for (int i = 0; i < WORKERS; i++) {
        CHECK_MSG(workers[i].ops >= MIN_OPS, "worker %d ran %ld operations", i, workers[i].ops);
        ops += workers[i].ops;
    }

    char *loaded = NULL;
    OK(tr_conversation_loaded(conv, &loaded, &err));
    CHECK_STR_EQ(loaded, "[\"get_weather\"]");
    char *last = NULL;
    OK(tr_conversation_tools(conv, &last, &err));
    long extra = extra_count(last);
    CHECK_MSG(extra > 0, "the registrar added %ld tools", extra);
    printf("%ld conversation operations on %d threads, %ld tools registered meanwhile\n", ops, WORKERS, extra);
    tr_string_free(loaded);
    tr_string_free(last);
    tr_conversation_free(conv);
    tr_registry_free(r);
    CHECK(corpus_host_frees() == corpus_host_registrations());
    return test_exit_code("test_conversation_threads");
}
