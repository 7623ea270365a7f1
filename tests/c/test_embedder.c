/*
 * Host embedders from C99: tr_registry_set_embedder with the fake embedder every binding's tests
 * share (dim 64; words split on non-alphanumeric ASCII, lowercased, FNV-1a 32-bit, 1.0 added at
 * hash % 64; all zeros -> [1, 0, ...]), which threads call it, `hybrid` finding a tool by its
 * vector alone, re-entrancy, failures of every kind (non-zero, wrong length, NaN, an unwritten
 * batch, an over-long message without NUL) leaving the tools lexically findable, free_user_data
 * exactly once, NULL arguments and bad options.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "test_util.h"
#include "toolregistry.h"

#define DIM 64
static const char *CATALOG =
    "[{\"name\": \"alpha_widget\", \"description\": \"Frobnicate the gizmo.\"},"
    " {\"name\": \"beta_gadget\", \"description\": \"Polish the sprocket.\"},"
    " {\"name\": \"gamma_thing\", \"description\": \"Paint the fence.\"}]";
/* No word in common with the catalog; its fake vector is the one of "sprocket". */
static const char *QUERY = "zzfs";

static uint32_t fnv1a(const char *s, size_t n) {
    uint32_t h = 0x811c9dc5u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x01000193u;
    }
    return h;
}

static void fake_vector(const char *text, float *v) {
    char word[256];
    size_t len = 0, nonzero = 0;
    memset(v, 0, DIM * sizeof *v);
    for (const char *p = text;; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 128 && isalnum(c)) {
            if (len < sizeof word) word[len++] = (char)tolower(c);
            continue;
        }
        if (len) {
            v[fnv1a(word, len) % DIM] += 1.0f;
            nonzero++;
            len = 0;
        }
        if (!c) break;
    }
    if (!nonzero) v[0] = 1.0f;
}

/* What the embedder does, and what it saw. */
typedef enum { GOOD, FAIL, FAIL_LONG, NOTHING, NAN_OUT, REENTER } mode_t_;
typedef struct {
    mode_t_ mode;
    tr_registry *registry; /* REENTER: calls tools_status on it */
    pthread_mutex_t lock;
    int calls, texts, freed, query_calls, catalog_calls;
    pthread_t owner;
} embedder;

static int32_t embed(void *user_data, const char *const *texts, size_t count, float *vectors, size_t dim,
                     char *error, size_t error_cap) {
    embedder *e = user_data;
    pthread_mutex_lock(&e->lock);
    e->calls++;
    e->texts += (int)count;
    if (pthread_equal(pthread_self(), e->owner))
        e->query_calls++;
    else
        e->catalog_calls++;
    pthread_mutex_unlock(&e->lock);
    if (dim != DIM) return 7;
    switch (e->mode) {
    case FAIL:
        snprintf(error, error_cap, "the fake embedder refuses");
        return 3;
    case FAIL_LONG:
        /* Fills the whole buffer with no NUL: the library must stop at error_cap. */
        memset(error, 'x', error_cap);
        return -1;
    case NOTHING:
        return 0;
    case NAN_OUT:
        for (size_t i = 0; i < count * dim; i++) vectors[i] = NAN;
        return 0;
    case REENTER: {
        char *out = NULL, *err = NULL;
        tr_status st = tr_registry_tools_status(e->registry, &out, &err);
        tr_string_free(out);
        tr_string_free(err);
        if (st != TR_STATUS_OK) {
            snprintf(error, error_cap, "re-entry failed");
            return 1;
        }
        break;
    }
    case GOOD:
        break;
    }
    for (size_t i = 0; i < count; i++) fake_vector(texts[i], vectors + i * dim);
    return 0;
}

static void free_embedder(void *user_data) {
    embedder *e = user_data;
    pthread_mutex_lock(&e->lock);
    e->freed++;
    pthread_mutex_unlock(&e->lock);
}

/* The library frees an embedder once no call of it runs, "on whichever thread lets go of it
 * last": after tr_registry_free or a replacement, the embedding thread may still be finishing,
 * so the count is awaited (10 s at most) rather than read at once. */
static int freed_after(embedder *e, int want) {
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&e->lock);
        int n = e->freed;
        pthread_mutex_unlock(&e->lock);
        if (n >= want) {
            /* Never more than once: give a second free the chance to show. */
            struct timespec pause = {0, 20 * 1000 * 1000};
            nanosleep(&pause, NULL);
            pthread_mutex_lock(&e->lock);
            n = e->freed;
            pthread_mutex_unlock(&e->lock);
            return n;
        }
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return e->freed;
}

static void init(embedder *e, mode_t_ mode) {
    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->lock, NULL);
    e->mode = mode;
    e->owner = pthread_self();
}

static tr_registry *new_registry(void) {
    tr_registry *r = NULL;
    char *names = NULL;
    OK(tr_registry_new(NULL, &r, &err));
    OK(tr_registry_register(r, CATALOG, &names, &err));
    tr_string_free(names);
    return r;
}

static json_value *parse_out(char *text) {
    json_value *v = text ? json_parse(text, NULL, 0) : NULL;
    CHECK_MSG(v != NULL, "unparsable: %s", text ? text : "(null)");
    tr_string_free(text);
    return v;
}

static json_value *status_json(tr_registry *r) {
    char *out = NULL;
    OK(tr_registry_embedding_status(r, &out, &err));
    return parse_out(out);
}

static double num(const json_value *v, const char *key) {
    const json_value *x = json_get(v, key);
    return x && x->type == JSON_NUMBER ? x->number : -1;
}

static void wait_done(tr_registry *r) {
    bool done = false;
    OK(tr_registry_wait_embeddings(r, 20000, &done, &err));
    CHECK(done);
}

/* The top hit's name of a discover, copied into `name` ("" when none). */
static void top_hit(tr_registry *r, const char *options, const char *query, char *name, size_t cap) {
    tr_discoverer *d = NULL;
    char *out = NULL;
    name[0] = '\0';
    OK(tr_discoverer_new(r, options, &d, &err));
    OK(tr_discoverer_discover(d, query, NULL, &out, &err));
    json_value *v = parse_out(out);
    const char *n = json_str(json_get(json_at(v, 0), "name"));
    if (n) snprintf(name, cap, "%s", n);
    json_free(v);
    tr_discoverer_free(d);
}

static void test_hybrid_finds_by_vector(void) {
    embedder e;
    char name[64];
    init(&e, GOOD);
    tr_registry *r = new_registry();
    top_hit(r, "{\"profile\": \"enhanced\"}", QUERY, name, sizeof name);
    CHECK_STR_EQ(name, "");
    OK(tr_registry_set_embedder(r, "{\"dim\": 64}", embed, &e, free_embedder, &err));
    wait_done(r);
    CHECK(e.catalog_calls >= 1 && e.query_calls == 0 && e.texts == 3);

    json_value *s = status_json(r);
    CHECK_STR_EQ(json_str(json_get(s, "embedder")), "host:64");
    CHECK(num(s, "dim") == 64 && num(s, "ready") == 3 && num(s, "pending") == 0 && num(s, "failed") == 0);
    CHECK(num(s, "embedded") == 3);
    json_free(s);

    char *out = NULL;
    OK(tr_registry_tools_status(r, &out, &err));
    json_value *tools = parse_out(out);
    for (size_t i = 0; i < 3; i++) CHECK_STR_EQ(json_str(json_get(json_at(tools, i), "embedding")), "ready");
    json_free(tools);

    /* No profile named: hybrid. The query is embedded on this (the discovering) thread. */
    top_hit(r, NULL, QUERY, name, sizeof name);
    CHECK_STR_EQ(name, "beta_gadget");
    CHECK(e.query_calls == 1);
    top_hit(r, "{\"profile\": \"hybrid\"}", QUERY, name, sizeof name);
    CHECK_STR_EQ(name, "beta_gadget");

    tr_discoverer *d = NULL;
    OK(tr_discoverer_new(r, NULL, &d, &err));
    OK(tr_discoverer_explain(d, QUERY, "beta_gadget", NULL, &out, &err));
    json_value *why = parse_out(out);
    const json_value *h = json_get(why, "hybrid");
    CHECK_STR_EQ(json_str(json_get(why, "profile")), "hybrid");
    CHECK(h && h->type == JSON_OBJECT);
    CHECK(num(h, "cosine") > 0.4 && num(h, "fused_rank") == 1);
    CHECK(json_get(h, "lexical_score") && json_get(h, "lexical_score")->type == JSON_NULL);
    CHECK(json_get(h, "embedded") && json_get(h, "embedded")->boolean);
    json_free(why);
    tr_discoverer_free(d);

    CHECK(e.freed == 0);
    tr_registry_free(r);
    CHECK(freed_after(&e, 1) == 1);
    pthread_mutex_destroy(&e.lock);
}

static void test_reentry(void) {
    embedder e;
    char name[64];
    init(&e, REENTER);
    tr_registry *r = new_registry();
    e.registry = r;
    OK(tr_registry_set_embedder(r, "{\"dim\": 64}", embed, &e, free_embedder, &err));
    wait_done(r);
    top_hit(r, NULL, QUERY, name, sizeof name);
    CHECK_STR_EQ(name, "beta_gadget");
    json_value *s = status_json(r);
    CHECK(num(s, "ready") == 3 && num(s, "failed") == 0);
    json_free(s);
    tr_registry_free(r);
    CHECK(freed_after(&e, 1) == 1);
    pthread_mutex_destroy(&e.lock);
}

/* Every failure fails its batch only: the tools stay lexically findable, status says failed. */
static void check_failing(mode_t_ mode, size_t dim_given, const char *warning_part) {
    embedder e;
    char name[64], options[64];
    init(&e, mode);
    tr_registry *r = new_registry();
    snprintf(options, sizeof options, "{\"dim\": %zu}", dim_given);
    OK(tr_registry_set_embedder(r, options, embed, &e, free_embedder, &err));
    wait_done(r);
    json_value *s = status_json(r);
    CHECK_MSG(num(s, "ready") == 0 && num(s, "pending") == 0 && num(s, "failed") == 3, "mode %d", (int)mode);
    const json_value *w = json_get(s, "warnings");
    CHECK_MSG(w && w->type == JSON_ARRAY && w->count >= 1, "mode %d: no warning", (int)mode);
    if (w && w->count && warning_part) {
        const char *first = json_str(json_at(w, 0));
        CHECK_MSG(first && strstr(first, warning_part), "mode %d: %s", (int)mode, first ? first : "(null)");
        /* An unterminated message is cut at the buffer, never read past it. */
        if (mode == FAIL_LONG) CHECK(first && strlen(first) < 2048);
    }
    json_free(s);
    char *out = NULL;
    OK(tr_registry_tools_status(r, &out, &err));
    json_value *tools = parse_out(out);
    for (size_t i = 0; i < 3; i++) CHECK_STR_EQ(json_str(json_get(json_at(tools, i), "embedding")), "failed");
    json_free(tools);
    top_hit(r, NULL, "polish sprocket", name, sizeof name);
    CHECK_STR_EQ(name, "beta_gadget");
    tr_registry_free(r);
    CHECK(freed_after(&e, 1) == 1);
    pthread_mutex_destroy(&e.lock);
}

static void test_replacing_frees_once(void) {
    embedder a, b;
    init(&a, GOOD);
    init(&b, GOOD);
    tr_registry *r = new_registry();
    OK(tr_registry_set_embedder(r, "{\"dim\": 64, \"identity\": \"fake-a\"}", embed, &a, free_embedder, &err));
    OK(tr_registry_set_embedder(r, "{\"dim\": 64, \"identity\": \"fake-b\"}", embed, &b, free_embedder, &err));
    wait_done(r);
    CHECK(freed_after(&a, 1) == 1 && b.freed == 0);
    json_value *s = status_json(r);
    CHECK_STR_EQ(json_str(json_get(s, "embedder")), "fake-b");
    json_free(s);
    tr_registry_free(r);
    CHECK(freed_after(&b, 1) == 1 && a.freed == 1);
    pthread_mutex_destroy(&a.lock);
    pthread_mutex_destroy(&b.lock);
}

static void expect(tr_status got, tr_status want, char *err, const char *what) {
    CHECK_MSG(got == want, "%s: %s (%s), want %s", what, tr_status_name(got), err ? err : "", tr_status_name(want));
    CHECK_MSG(want == TR_STATUS_OK || (err && *err), "%s: no message", what);
    tr_string_free(err);
}

static void test_bad_arguments(void) {
    embedder e;
    init(&e, GOOD);
    tr_registry *r = new_registry();
    char *err = NULL, *out = NULL;
    int frees = 0;
    tr_status st;
    st = tr_registry_set_embedder(NULL, "{\"dim\": 64}", embed, &e, free_embedder, &err);
    expect(st, TR_STATUS_NULL_ARGUMENT, err, "NULL registry");
    frees++;
    err = NULL;
    st = tr_registry_set_embedder(r, NULL, embed, &e, free_embedder, &err);
    expect(st, TR_STATUS_NULL_ARGUMENT, err, "NULL options");
    frees++;
    err = NULL;
    st = tr_registry_set_embedder(r, "{\"dim\": 64}", NULL, &e, free_embedder, &err);
    expect(st, TR_STATUS_NULL_ARGUMENT, err, "NULL fn");
    frees++;
    const char *bad[] = {"{", "[]", "null", "{}", "{\"dim\": 0}", "{\"dim\": 100000}", "{\"dim\": \"64\"}",
                         "{\"dim\": 64, \"colour\": 1}", "{\"dim\": 64, \"identity\": 5}", "{\"dim\": -1}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err = NULL;
        tr_status st = tr_registry_set_embedder(r, bad[i], embed, &e, free_embedder, &err);
        CHECK_MSG(st == TR_STATUS_INVALID_JSON || st == TR_STATUS_INVALID_ARGUMENT, "%s: %s", bad[i],
                  tr_status_name(st));
        CHECK_MSG(err && *err, "%s: no message", bad[i]);
        tr_string_free(err);
        frees++;
    }
    err = NULL;
    st = tr_registry_set_embedder(r, "\xff", embed, &e, free_embedder, &err);
    expect(st, TR_STATUS_INVALID_UTF8, err, "bad UTF-8");
    frees++;
    /* The registry owns user_data even when the call fails: freed once per call. */
    CHECK_MSG(e.freed == frees, "freed %d times, want %d", e.freed, frees);
    /* Nothing half-applied. */
    err = NULL;
    st = tr_registry_embedding_status(r, &out, &err);
    expect(st, TR_STATUS_OK, err, "status");
    CHECK_STR_EQ(out, "null");
    tr_string_free(out);

    bool done = false;
    err = NULL;
    st = tr_registry_wait_embeddings(r, 0, &done, &err);
    expect(st, TR_STATUS_OK, err, "wait without embedder");
    CHECK(done);
    err = NULL;
    st = tr_registry_wait_embeddings(r, 0, NULL, &err);
    expect(st, TR_STATUS_OK, err, "wait, NULL done_out");
    err = NULL;
    st = tr_registry_wait_embeddings(NULL, 0, &done, &err);
    expect(st, TR_STATUS_NULL_ARGUMENT, err, "wait NULL");
    err = NULL;
    st = tr_registry_embedding_status(NULL, &out, &err);
    expect(st, TR_STATUS_NULL_ARGUMENT, err, "status NULL r");
    err = NULL;
    st = tr_registry_embedding_status(r, NULL, &err);
    expect(st, TR_STATUS_NULL_ARGUMENT, err, "status NULL out");
    /* A NULL err_out is allowed. */
    CHECK(tr_registry_embedding_status(NULL, &out, NULL) == TR_STATUS_NULL_ARGUMENT);
    CHECK(tr_registry_set_embedder(r, "{}", embed, NULL, NULL, NULL) == TR_STATUS_INVALID_ARGUMENT);

    /* hybrid without an embedder: INVALID_ARGUMENT, naming what is missing. */
    tr_discoverer *d = NULL;
    OK(tr_discoverer_new(r, NULL, &d, &err));
    err = NULL;
    tr_discoverer_free(d);
    err = NULL;
    st = tr_discoverer_new(r, "{\"profile\": \"hybrid\"}", &d, &err);
    if (st == TR_STATUS_OK) {
        tr_string_free(err);
        err = NULL;
        st = tr_discoverer_discover(d, QUERY, NULL, &out, &err);
        tr_discoverer_free(d);
    }
    CHECK_MSG(st == TR_STATUS_INVALID_ARGUMENT && err && strstr(err, "embed"), "hybrid discoverer: %s: %s",
              tr_status_name(st), err ? err : "");
    tr_string_free(err);

    /* Registry options: a missing model directory or a bad key is a clear error at load. */
    tr_registry *bad_r = NULL;
    err = NULL;
    st = tr_registry_new("{\"embedding\": {\"model_dir\": \"/nonexistent/model\"}}", &bad_r, &err);
    CHECK_MSG(st != TR_STATUS_OK && bad_r == NULL && err && *err, "missing model: %s", tr_status_name(st));
    tr_string_free(err);
    err = NULL;
    st = tr_registry_new("{\"embedding\": {\"model\": \"x\"}}", &bad_r, &err);
    expect(st, TR_STATUS_INVALID_ARGUMENT, err, "unknown embedding key");
    err = NULL;
    st = tr_registry_new("{\"embedding\": {\"threads\": 0}}", &bad_r, &err);
    expect(st, TR_STATUS_INVALID_ARGUMENT, err, "threads 0");
    tr_registry_free(r);
    CHECK(freed_after(&e, frees) == frees);
    pthread_mutex_destroy(&e.lock);
}

/* The pull model from C: no callback; the texts are taken, their vectors put back in reverse
 * order, a bad vector refused whole; then hybrid needs the query's vector as an option. */
static void test_pull(void) {
    char name[64];
    char *err = NULL;
    tr_registry *r = new_registry();
    CHECK(tr_registry_set_embedder(r, "{\"dim\": 64, \"pull\": true}", embed, NULL, NULL, &err) ==
          TR_STATUS_INVALID_ARGUMENT);
    tr_string_free(err);
    err = NULL;
    OK(tr_registry_set_embedder(r, "{\"dim\": 64, \"pull\": true}", NULL, NULL, NULL, &err));
    size_t answered = 0;
    for (int spins = 0; answered < 3 && spins < 100000; spins++) {
        char *jobs = NULL;
        OK(tr_registry_take_embedding_jobs(r, 0, &jobs, &err));
        json_value *list = parse_out(jobs);
        if (list->count == 0) {
            json_free(list);
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
            continue;
        }
        strbuf bad, good;
        sb_init(&bad);
        sb_init(&good);
        sb_puts(&bad, "[");
        sb_puts(&good, "[");
        for (size_t i = list->count; i-- > 0;) {
            const json_value *job = json_at(list, i);
            float v[DIM];
            fake_vector(json_str(json_get(job, "text")), v);
            const char *sep = i + 1 == list->count ? "" : ",";
            sb_printf(&bad, "%s{\"id\":%.0f,\"vector\":[1,2]}", sep, json_get(job, "id")->number);
            sb_printf(&good, "%s{\"id\":%.0f,\"vector\":[", sep, json_get(job, "id")->number);
            for (int k = 0; k < DIM; k++) sb_printf(&good, "%s%g", k ? "," : "", v[k]);
            sb_puts(&good, "]}");
        }
        sb_puts(&bad, "]");
        sb_puts(&good, "]");
        CHECK(tr_registry_put_embeddings(r, bad.data, &err) == TR_STATUS_INVALID_ARGUMENT);
        tr_string_free(err);
        err = NULL;
        OK(tr_registry_put_embeddings(r, good.data, &err));
        answered += list->count;
        sb_free(&bad);
        sb_free(&good);
        json_free(list);
    }
    CHECK(answered == 3);
    wait_done(r);
    top_hit(r, NULL, QUERY, name, sizeof name);
    CHECK_STR_EQ(name, ""); /* no query vector: words only */
    tr_discoverer *d = NULL;
    OK(tr_discoverer_new(r, NULL, &d, &err));
    float q[DIM];
    fake_vector(QUERY, q);
    strbuf opts;
    sb_init(&opts);
    sb_puts(&opts, "{\"top_k\": 1, \"query_vector\": [");
    for (int k = 0; k < DIM; k++) sb_printf(&opts, "%s%g", k ? "," : "", q[k]);
    sb_puts(&opts, "]}");
    char *out = NULL;
    OK(tr_discoverer_discover(d, QUERY, opts.data, &out, &err));
    json_value *hits = parse_out(out);
    CHECK_STR_EQ(json_str(json_get(json_at(hits, 0), "name")), "beta_gadget");
    json_free(hits);
    sb_free(&opts);
    tr_discoverer_free(d);
    char *jobs = NULL;
    tr_registry *plain = new_registry();
    CHECK(tr_registry_take_embedding_jobs(plain, 8, &jobs, &err) == TR_STATUS_INVALID_ARGUMENT);
    CHECK(jobs == NULL);
    tr_string_free(err);
    err = NULL;
    CHECK(tr_registry_put_embeddings(NULL, "[]", &err) == TR_STATUS_NULL_ARGUMENT);
    tr_string_free(err);
    err = NULL;
    tr_registry_free(plain);
    tr_registry_free(r);
}

int main(void) {
    float v[DIM];
    /* The fake itself: FNV-1a test vectors, and the shared bucket the tests rely on. */
    CHECK(fnv1a("", 0) == 0x811c9dc5u && fnv1a("a", 1) == 0xe40c292cu);
    CHECK(fnv1a("sprocket", 8) % DIM == fnv1a("zzfs", 4) % DIM);
    fake_vector("--", v);
    CHECK(v[0] == 1.0f);

    test_hybrid_finds_by_vector();
    test_reentry();
    check_failing(FAIL, 64, "the fake embedder refuses");
    check_failing(FAIL_LONG, 64, "xxxx");
    check_failing(NOTHING, 64, NULL);
    check_failing(NAN_OUT, 64, NULL);
    check_failing(GOOD, 63, NULL); /* the embedder refuses a dim it does not make */
    test_replacing_frees_once();
    test_bad_arguments();
    test_pull();
    return test_exit_code("test_embedder");
}
