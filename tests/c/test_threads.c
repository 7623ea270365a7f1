/*
 * Concurrency from C with pthreads: 8 threads discover (by exact name, by query, and through
 * discover_tools) while 2 threads register, unregister, re-tag and toggle their own tools, for a
 * bounded time (argv[1] seconds, default 2, and at least MIN_OPS operations per thread). Then the registry and index must be consistent: only
 * the stable tools remain, and every answer equals the one from a fresh discoverer, from a rebuilt
 * index and from a new registry holding the same tools.
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

#define STABLE_TOOLS 20
#define CHURN_TOOLS 12
#define READERS 8
#define WRITERS 2
/* Each thread works until the deadline and until it has done this many operations: under
 * valgrind (one thread runs at a time) on a loaded machine a thread can otherwise get no turn at
 * all. A thread still short of it GIVE_UP_SECONDS after the deadline reports a failure. */
#define MIN_OPS 20
#define GIVE_UP_SECONDS 60.0

static const char *const WORDS[] = {"file", "email", "weather", "invoice", "user", "search", "upload",
                                    "photo", "calendar", "event", "payment", "report", "archive", "message"};
#define NUM_WORDS (sizeof WORDS / sizeof WORDS[0])

static const char *const QUERIES[] = {"search file", "send email message", "weather report", "upload photo archive",
                                      "calendar event", "payment invoice user"};
#define NUM_QUERIES (sizeof QUERIES / sizeof QUERIES[0])

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *tool_json(const char *prefix, int i, int variant) {
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "{\"name\": \"%s_%d\", \"description\": \"%s the %s of a %s.\","
                   " \"parameters\": {\"type\": \"object\", \"properties\": {\"%s\": {\"type\": \"string\"}}},"
                   " \"metadata\": {\"defer\": %s, \"tags\": [\"%s\"]}}",
              prefix, i, WORDS[(size_t)(i + variant) % NUM_WORDS], WORDS[(size_t)(i * 3 + 1) % NUM_WORDS],
              WORDS[(size_t)(i * 5 + 2 + variant) % NUM_WORDS], WORDS[(size_t)(i * 7 + 3) % NUM_WORDS],
              (i + variant) % 2 ? "true" : "false", WORDS[(size_t)(i + 4) % NUM_WORDS]);
    return sb.data;
}

static void register_stable(tr_registry *r) {
    for (int i = 0; i < STABLE_TOOLS; i++) {
        char *json = tool_json("stable", i, 0), *names = NULL;
        OK(tr_registry_register(r, json, &names, &err));
        tr_string_free(names);
        free(json);
    }
}

typedef struct {
    tr_registry *registry;
    tr_discoverer *discoverer;
    int id;
    double deadline;
    long ops;
    long failures;
    char first_failure[256];
} worker;

/* True while the worker should keep going. */
static int keep_going(const worker *w) {
    double now = now_seconds();
    return now < w->deadline || (w->ops < MIN_OPS && now < w->deadline + GIVE_UP_SECONDS);
}

static void fail(worker *w, const char *what, const char *detail) {
    if (w->failures++ == 0)
        snprintf(w->first_failure, sizeof w->first_failure, "%s: %s", what, detail ? detail : "");
}

/* Checks a query answer: a JSON array of at most top_k known tools, best score first. */
static void check_answer(worker *w, const char *text, size_t top_k) {
    json_value *v = json_parse(text, NULL, 0);
    if (!v || v->type != JSON_ARRAY || v->count > top_k) {
        fail(w, "bad answer", text);
        json_free(v);
        return;
    }
    double previous = 1e300;
    for (size_t i = 0; i < v->count; i++) {
        const char *name = json_str(json_get(json_at(v, i), "name"));
        const json_value *score = json_get(json_at(v, i), "score");
        if (!name || (strncmp(name, "stable_", 7) != 0 && strncmp(name, "churn", 5) != 0) || !score ||
            score->number > previous || score->number <= 0) {
            fail(w, "bad hit", text);
            break;
        }
        previous = score->number;
    }
    json_free(v);
}

static void *reader(void *arg) {
    worker *w = arg;
    unsigned seed = (unsigned)w->id * 7919u + 1u;
    while (keep_going(w)) {
        seed = seed * 1103515245u + 12345u;
        char *out = NULL, *err = NULL;
        tr_status st;
        switch (seed % 3) {
        case 0: { /* a stable tool by exact name: always exactly that tool */
            char name[32];
            snprintf(name, sizeof name, "stable_%u", (seed >> 8) % STABLE_TOOLS);
            st = tr_discoverer_discover(w->discoverer, name, NULL, &out, &err);
            if (st == TR_STATUS_OK) {
                json_value *v = json_parse(out, NULL, 0);
                const json_value *hit = json_at(v, 0);
                if (!v || v->count != 1 || strcmp(json_str(json_get(hit, "name")), name) != 0 ||
                    json_get(hit, "score")->number != 1.0 || !json_get(hit, "schema"))
                    fail(w, "exact name", out);
                json_free(v);
            }
            break;
        }
        case 1:
            st = tr_discoverer_discover(w->discoverer, QUERIES[(seed >> 8) % NUM_QUERIES], "{\"top_k\": 5}", &out, &err);
            if (st == TR_STATUS_OK) check_answer(w, out, 5);
            break;
        default: {
            char args[96];
            snprintf(args, sizeof args, "{\"query\": \"%s\", \"top_k\": 3}", QUERIES[(seed >> 8) % NUM_QUERIES]);
            st = tr_registry_call(w->registry, "discover_tools", args, &out, &err);
            if (st == TR_STATUS_OK) check_answer(w, out, 3);
            break;
        }
        }
        if (st != TR_STATUS_OK) fail(w, tr_status_name(st), err);
        tr_string_free(out);
        tr_string_free(err);
        w->ops++;
    }
    return NULL;
}

/* Only this writer touches its tools, so it knows exactly which exist and which calls must work. */
static void *writer(void *arg) {
    worker *w = arg;
    int present[CHURN_TOOLS] = {0};
    char prefix[16];
    snprintf(prefix, sizeof prefix, "churn%d", w->id);
    unsigned seed = (unsigned)w->id * 104729u + 3u;
    while (keep_going(w)) {
        seed = seed * 1103515245u + 12345u;
        int k = (int)((seed >> 8) % CHURN_TOOLS);
        char name[32], *err = NULL;
        snprintf(name, sizeof name, "%s_%d", prefix, k);
        tr_status st;
        if (!present[k] || seed % 4 == 0) {
            char *json = tool_json(prefix, k, (int)(seed % 5)), *names = NULL;
            st = tr_registry_register(w->registry, json, &names, &err);
            tr_string_free(names);
            free(json);
            present[k] = 1;
        } else if (seed % 4 == 1) {
            st = tr_registry_unregister(w->registry, name, &err);
            present[k] = 0;
        } else if (seed % 4 == 2) {
            st = tr_registry_set_metadata(w->registry, name, "{\"search_hint\": \"weather file\", \"tags\": [\"slow\"]}", &err);
        } else {
            st = tr_registry_set_enabled(w->registry, name, (seed >> 4) % 2 == 0, &err);
        }
        if (st != TR_STATUS_OK) fail(w, tr_status_name(st), err);
        tr_string_free(err);
        w->ops++;
    }
    for (int k = 0; k < CHURN_TOOLS; k++) {
        char name[32], *err = NULL;
        snprintf(name, sizeof name, "%s_%d", prefix, k);
        if (present[k] && tr_registry_unregister(w->registry, name, &err) != TR_STATUS_OK) fail(w, "cleanup", err);
        tr_string_free(err);
    }
    return NULL;
}

static char *discover_text(const tr_discoverer *d, const char *query) {
    char *out = NULL;
    OK(tr_discoverer_discover(d, query, "{\"top_k\": 10}", &out, &err));
    return out;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    tr_registry *r = NULL;
    tr_discoverer *d = NULL;
    OK(tr_registry_new("{\"discovery\": {}}", &r, &err));
    register_stable(r);
    OK(tr_discoverer_new(r, NULL, &d, &err));

    worker workers[READERS + WRITERS];
    pthread_t threads[READERS + WRITERS];
    double started = now_seconds(), deadline = started + seconds;
    for (int i = 0; i < READERS + WRITERS; i++) {
        memset(&workers[i], 0, sizeof workers[i]);
        workers[i].registry = r;
        workers[i].discoverer = d;
        workers[i].id = i;
        workers[i].deadline = deadline;
        int rc = pthread_create(&threads[i], NULL, i < READERS ? reader : writer, &workers[i]);
        CHECK(rc == 0);
    }
    long reads = 0, writes = 0;
    for (int i = 0; i < READERS + WRITERS; i++) {
        pthread_join(threads[i], NULL);
        CHECK_MSG(workers[i].failures == 0, "thread %d: %ld failures, first: %s", i, workers[i].failures,
                  workers[i].first_failure);
        CHECK_MSG(workers[i].ops >= MIN_OPS, "thread %d did only %ld operations", i, workers[i].ops);
        if (i < READERS) reads += workers[i].ops;
        else writes += workers[i].ops;
    }
    printf("test_threads: %.1f s, %d readers: %ld discovers, %d writers: %ld mutations\n", now_seconds() - started,
           READERS, reads, WRITERS, writes);

    /* Only the stable tools (and the built-ins discover_tools and call_deferred) remain. */
    char *schemas = NULL;
    OK(tr_registry_get_schemas(r, NULL, &schemas, &err));
    json_value *v = json_parse(schemas, NULL, 0);
    CHECK_MSG(v && v->count == STABLE_TOOLS + 2, "%zu schemas left", v ? v->count : 0);
    json_free(v);
    tr_string_free(schemas);

    /* The long-lived discoverer, a fresh one, a rebuilt index and a new registry all agree. */
    tr_discoverer *fresh = NULL, *other = NULL;
    tr_registry *r2 = NULL;
    OK(tr_discoverer_new(r, NULL, &fresh, &err));
    OK(tr_registry_new(NULL, &r2, &err));
    register_stable(r2);
    OK(tr_discoverer_new(r2, NULL, &other, &err));
    for (size_t q = 0; q < NUM_QUERIES; q++) {
        char *a = discover_text(d, QUERIES[q]);
        char *b = discover_text(fresh, QUERIES[q]);
        char *c = discover_text(other, QUERIES[q]);
        OK(tr_discoverer_rebuild_index(d, &err));
        char *e = discover_text(d, QUERIES[q]);
        CHECK_STR_EQ(a, b);
        CHECK_STR_EQ(a, c);
        CHECK_STR_EQ(a, e);
        CHECK_MSG(a && strstr(a, "churn") == NULL, "%s", a);
        tr_string_free(a);
        tr_string_free(b);
        tr_string_free(c);
        tr_string_free(e);
    }
    tr_discoverer_free(other);
    tr_registry_free(r2);
    tr_discoverer_free(fresh);
    tr_discoverer_free(d);
    tr_registry_free(r);
    return test_exit_code("test_threads");
}
