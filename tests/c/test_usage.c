/*
 * Usage (co-use) from C99: tr_registry_record_usage (a recorded habit brings the partner into a
 * discover answer with its reason; unknown, repeated and empty names do not count; a task of
 * 10,000 names is bounded; bad input gets its status and records nothing), tr_registry_usage_status,
 * tr_registry_enable_usage and tr_registry_save_usage (the counts survive a restart through the
 * usage file in a temporary folder; a corrupt file is an empty start with a warning).
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "test_util.h"
#include "toolregistry.h"

#define QUERY "add an agenda item for tomorrow"
#define REASON "used with `add_agenda` in 12 of its 15 tasks"

static tr_registry *new_registry(const char *options) {
    tr_registry *r = NULL;
    char *names = NULL;
    strbuf tools;
    int i;
    sb_init(&tools);
    sb_puts(&tools,
            "[{\"name\": \"add_agenda\", \"description\": \"Add an agenda item to the user's schedule.\"},"
            " {\"name\": \"get_user_token\", \"description\": \"Get the user token by username and password.\"},"
            " {\"name\": \"list_files\", \"description\": \"List the files of a folder.\"},"
            " {\"name\": \"send_email\", \"description\": \"Send an email message.\"}");
    for (i = 0; i < 8; i++) {
        sb_printf(&tools, ", {\"name\": \"agenda_tool_%d\", \"description\": \"Agenda item helper number %d:"
                          " works on an agenda item.\"}", i, i);
    }
    sb_puts(&tools, "]");
    OK(tr_registry_new(options, &r, &err));
    OK(tr_registry_register(r, tools.data, &names, &err));
    tr_string_free(names);
    sb_free(&tools);
    return r;
}

/* Records `names_json` and checks how many names counted. */
static void record(tr_registry *r, const char *names_json, size_t want) {
    size_t counted = 999;
    OK(tr_registry_record_usage(r, names_json, &counted, &err));
    CHECK_MSG(counted == want, "%s: counted %zu, want %zu", names_json, counted, want);
}

static void with_login_habit(tr_registry *r) {
    int i;
    for (i = 0; i < 12; i++) record(r, "[\"add_agenda\", \"get_user_token\"]", 2);
    for (i = 0; i < 3; i++) record(r, "[\"add_agenda\"]", 1);
    for (i = 0; i < 10; i++) record(r, "[\"list_files\"]", 1);
}

/* The usage status, parsed. Free with json_free. */
static json_value *status(const tr_registry *r) {
    char *out = NULL;
    json_value *v;
    OK(tr_registry_usage_status(r, &out, &err));
    v = out ? json_parse(out, NULL, 0) : NULL;
    CHECK_MSG(v != NULL, "status is not JSON: %s", out ? out : "(null)");
    tr_string_free(out);
    return v;
}

static double status_number(const tr_registry *r, const char *key) {
    json_value *s = status(r);
    const json_value *v = json_get(s, key);
    double n = v && v->type == JSON_NUMBER ? v->number : -1;
    json_free(s);
    return n;
}

/* The discover answer of QUERY, parsed. Free with json_free. */
static json_value *discover(tr_registry *r, const char *options) {
    tr_discoverer *d = NULL;
    char *out = NULL;
    json_value *v;
    OK(tr_discoverer_new(r, options, &d, &err));
    OK(tr_discoverer_discover(d, QUERY, "{\"top_k\": 10}", &out, &err));
    tr_discoverer_free(d);
    v = out ? json_parse(out, NULL, 0) : NULL;
    CHECK(v != NULL && v->type == JSON_ARRAY);
    tr_string_free(out);
    return v;
}

/* How many hits were brought in; the reason of `name`'s (NULL when not brought in) in *why. */
static size_t brought_in(const json_value *hits, const char *name, const char **why) {
    size_t i, n = 0;
    *why = NULL;
    for (i = 0; hits && i < hits->count; i++) {
        const char *reason = json_str(json_get(json_at(hits, i), "brought_in"));
        if (!reason) continue;
        n++;
        if (strcmp(json_str(json_get(json_at(hits, i), "name")), name) == 0) *why = reason;
    }
    return n;
}

static void test_habit_brings_partner_in(void) {
    tr_registry *r = new_registry(NULL);
    json_value *before = discover(r, NULL), *after, *off;
    const char *why;
    CHECK(brought_in(before, "get_user_token", &why) == 0);
    with_login_habit(r);
    after = discover(r, NULL);
    CHECK(brought_in(after, "get_user_token", &why) == 1);
    CHECK_STR_EQ(why, REASON);
    CHECK_STR_EQ(json_str(json_get(json_at(after, 0), "name")), "add_agenda");
    off = discover(r, "{\"usage\": false}");
    CHECK(brought_in(off, "get_user_token", &why) == 0 && off->count == before->count);
    CHECK(status_number(r, "tasks") == 25);
    CHECK(status_number(r, "tools") == 3);
    json_free(before);
    json_free(after);
    json_free(off);
    tr_registry_free(r);
}

static void test_what_does_not_count(void) {
    tr_registry *r = new_registry(NULL);
    strbuf big;
    int i;
    clock_t start;
    record(r, "[]", 0);
    record(r, "[\"no_such_tool\", \"\", \"ADD_AGENDA\"]", 0);
    CHECK(status_number(r, "tasks") == 0);
    record(r, "[\"add_agenda\", \"add_agenda\", \"nope\", \"list_files\", \"add_agenda\"]", 2);
    OK(tr_registry_record_usage(r, "[\"list_files\"]", NULL, &err)); /* counted_out may be NULL */
    CHECK(status_number(r, "tasks") == 2);
    /* 10,000 names, nearly all unknown: bounded time, and only the registered ones count. */
    sb_init(&big);
    sb_puts(&big, "[\"add_agenda\"");
    for (i = 0; i < 10000; i++) sb_printf(&big, ", \"unknown_tool_%d\"", i);
    sb_puts(&big, ", \"get_user_token\", \"add_agenda\"]");
    start = clock();
    record(r, big.data, 2);
    CHECK_MSG((double)(clock() - start) / CLOCKS_PER_SEC < 5.0, "a task of 10,000 names took too long");
    sb_free(&big);
    CHECK(status_number(r, "tasks") == 3);
    tr_registry_free(r);
}

static void expect_status(tr_status got, tr_status want, char *err, const char *needle) {
    CHECK_MSG(got == want, "%s, want %s (%s)", tr_status_name(got), tr_status_name(want), err ? err : "");
    CHECK_MSG(err && strstr(err, needle) && !strchr(err, '\n'), "message %s lacks %s", err ? err : "(null)",
              needle);
    tr_string_free(err);
}

/* EXPECT(call, status, needle): runs `call`, which may use a fresh `char *err` as its err_out, then
 * checks its status and message (the call first: C leaves the order of arguments unspecified). */
#define EXPECT(call_with_err, want, needle)                                           \
    do {                                                                              \
        char *err = NULL;                                                             \
        tr_status expect_st_ = (call_with_err);                                       \
        expect_status(expect_st_, want, err, needle);                                 \
    } while (0)

static void test_bad_input(void) {
    tr_registry *r = new_registry(NULL);
    char *out = NULL;
    size_t counted = 77;
    static const char bad_utf8[] = {'[', '"', (char)0xff, '"', ']', 0};
    EXPECT(tr_registry_record_usage(NULL, "[]", &counted, &err), TR_STATUS_NULL_ARGUMENT, "registry");
    EXPECT(tr_registry_record_usage(r, NULL, &counted, &err), TR_STATUS_NULL_ARGUMENT, "names_json");
    EXPECT(tr_registry_record_usage(r, bad_utf8, &counted, &err), TR_STATUS_INVALID_UTF8, "names_json");
    EXPECT(tr_registry_record_usage(r, "[\"add_agenda\"", &counted, &err), TR_STATUS_INVALID_JSON, "line 1");
    EXPECT(tr_registry_record_usage(r, "[\"add_agenda\", 7]", &counted, &err), TR_STATUS_INVALID_ARGUMENT,
           "usage[1]: expected a string, got a number");
    EXPECT(tr_registry_record_usage(r, "{\"tools\": []}", &counted, &err), TR_STATUS_INVALID_ARGUMENT,
           "expected an array");
    EXPECT(tr_registry_record_usage(r, "null", &counted, &err), TR_STATUS_INVALID_ARGUMENT, "null");
    CHECK(tr_registry_record_usage(r, "[1]", &counted, NULL) == TR_STATUS_INVALID_ARGUMENT); /* err_out NULL */
    CHECK_MSG(counted == 77, "a failed call wrote counted_out: %zu", counted);
    EXPECT(tr_registry_usage_status(r, NULL, &err), TR_STATUS_NULL_ARGUMENT, "json_out");
    EXPECT(tr_registry_usage_status(NULL, &out, &err), TR_STATUS_NULL_ARGUMENT, "registry");
    CHECK(out == NULL);
    EXPECT(tr_registry_save_usage(NULL, &err), TR_STATUS_NULL_ARGUMENT, "registry");
    EXPECT(tr_registry_enable_usage(NULL, NULL, &err), TR_STATUS_NULL_ARGUMENT, "registry");
    EXPECT(tr_registry_enable_usage(r, "", &err), TR_STATUS_INVALID_ARGUMENT, "path");
    CHECK(status_number(r, "tasks") == 0);
    OK(tr_registry_save_usage(r, &err)); /* no path: nothing to do */
    tr_registry_free(r);
}

static void test_persistence(const char *dir) {
    char path[1024], options[1200];
    tr_registry *r;
    json_value *s, *hits;
    const char *why;
    FILE *f;
    snprintf(path, sizeof path, "%s/usage.json", dir);
    snprintf(options, sizeof options, "{\"usage\": {\"path\": \"%s\"}}", path);
    r = new_registry(options);
    s = status(r);
    CHECK(json_get(s, "recording") && json_get(s, "recording")->boolean);
    CHECK_STR_EQ(json_str(json_get(s, "path")), path);
    json_free(s);
    with_login_habit(r);
    OK(tr_registry_save_usage(r, &err));
    tr_registry_free(r);

    /* Turned on later, on a registry that knows nothing yet. */
    r = new_registry(NULL);
    OK(tr_registry_enable_usage(r, path, &err));
    CHECK(status_number(r, "tasks") == 25);
    hits = discover(r, NULL);
    CHECK(brought_in(hits, "get_user_token", &why) == 1);
    CHECK_STR_EQ(why, REASON);
    json_free(hits);
    tr_registry_free(r);

    /* A corrupt file: an empty start with a warning, not an error. */
    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs("{\"toolregistry_usage\": 1, \"tasks\": [", f);
        fclose(f);
    }
    r = new_registry(options);
    s = status(r);
    CHECK(json_get(s, "tasks") && json_get(s, "tasks")->number == 0);
    CHECK_MSG(json_str(json_get(s, "warning")) && strstr(json_str(json_get(s, "warning")), "ignored the usage file"),
              "no warning for a corrupt file");
    json_free(s);
    tr_registry_free(r);
    remove(path);
}

int main(int argc, char **argv) {
    char dir[512];
    const char *tmp = getenv("TMPDIR");
    (void)argc;
    (void)argv;
    test_habit_brings_partner_in();
    test_what_does_not_count();
    test_bad_input();
    snprintf(dir, sizeof dir, "%s/tr-c-usage-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir)) {
        test_persistence(dir);
        rmdir(dir);
    } else {
        CHECK_MSG(0, "no temporary folder");
    }
    return test_exit_code("test_usage");
}
