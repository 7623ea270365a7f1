#define _POSIX_C_SOURCE 200809L
#include "corpus.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json.h"

typedef enum { HOST_ECHO, HOST_FAIL, HOST_PANIC } host_kind;

static int host_frees = 0;
static int host_registrations = 0;

/* Each registered tool's host kind by name, for a host that runs a plan's calls itself. */
#define MAX_KINDS 64
static struct {
    char *name;
    host_kind kind;
} kinds[MAX_KINDS];
static size_t kind_count = 0;

int corpus_host_frees(void) { return host_frees; }
int corpus_host_registrations(void) { return host_registrations; }

static void free_host(void *user_data) {
    host_frees++;
    free(user_data);
}

/* The scripted host functions of tests/conformance/README.md. A C host cannot panic; like every
 * binding's trampoline, it reports what a panic would have been. */
static void scripted_host(void *user_data, const char *tool_name, const char *args_json, tr_call *call) {
    strbuf sb;
    sb_init(&sb);
    switch (*(const host_kind *)user_data) {
    case HOST_ECHO:
        sb_printf(&sb, "%s <- %s", tool_name, args_json);
        tr_call_return(call, sb.data);
        break;
    case HOST_FAIL:
        tr_call_fail(call, "upstream returned 503");
        break;
    case HOST_PANIC:
        sb_printf(&sb, "the host function of \"%s\" panicked: kaboom", tool_name);
        tr_call_fail(call, sb.data);
        break;
    }
    sb_free(&sb);
}

static int report(const char *what, tr_status status, char *err) {
    if (status == TR_STATUS_OK) return 1;
    fprintf(stderr, "corpus: %s: %s: %s\n", what, tr_status_name(status), err ? err : "(no message)");
    tr_string_free(err);
    return 0;
}

static char *path_join(const char *dir, const char *name) {
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s/%s", dir, name);
    return sb.data;
}

static int register_entry(tr_registry *r, const json_value *entry) {
    const json_value *tool = json_get(entry, "tool");
    const char *kind = json_str(json_get(entry, "host"));
    strbuf sb;
    sb_init(&sb);
    sb_json(&sb, tool);
    char *names = NULL, *err = NULL;
    tr_status st;
    if (kind == NULL) {
        st = tr_registry_register(r, sb.data, &names, &err);
    } else {
        host_kind *k = malloc(sizeof *k);
        if (!k) abort();
        if (strcmp(kind, "echo") == 0) *k = HOST_ECHO;
        else if (strcmp(kind, "fail") == 0) *k = HOST_FAIL;
        else if (strcmp(kind, "panic") == 0) *k = HOST_PANIC;
        else {
            fprintf(stderr, "corpus: unknown host kind %s\n", kind);
            free(k);
            sb_free(&sb);
            return 0;
        }
        host_registrations++;
        if (kind_count < MAX_KINDS) {
            kinds[kind_count].name = strdup(json_str(json_get(tool, "name")));
            kinds[kind_count++].kind = *k;
        }
        st = tr_registry_register_callable(r, sb.data, scripted_host, k, free_host, &names, &err);
    }
    sb_free(&sb);
    tr_string_free(names);
    return report("register", st, err);
}

tr_registry *corpus_registry(const char *corpus_dir) {
    char *path = path_join(corpus_dir, "fixture.json");
    char *text = read_file(path);
    char msg[128] = "";
    json_value *fixture = text ? json_parse(text, msg, sizeof msg) : NULL;
    free(text);
    if (!fixture) {
        fprintf(stderr, "corpus: cannot read %s %s\n", path, msg);
        free(path);
        return NULL;
    }
    free(path);
    tr_registry *r = NULL;
    char *err = NULL;
    int ok = report("registry", tr_registry_new(NULL, &r, &err), err);
    const json_value *tools = json_get(fixture, "tools");
    for (size_t i = 0; ok && tools && i < tools->count; i++) ok = register_entry(r, json_at(tools, i));
    const json_value *disable = json_get(fixture, "disable");
    for (size_t i = 0; ok && disable && i < disable->count; i++) {
        const json_value *d = json_at(disable, i);
        err = NULL;
        ok = report("disable",
                    tr_registry_disable(r, json_str(json_get(d, "name")), json_str(json_get(d, "reason")), &err), err);
    }
    if (ok) {
        strbuf sb;
        sb_init(&sb);
        sb_json(&sb, json_get(fixture, "discovery"));
        err = NULL;
        ok = report("enable_discovery", tr_registry_enable_discovery(r, sb.data, &err), err);
        sb_free(&sb);
    }
    json_free(fixture);
    if (!ok) {
        tr_registry_free(r);
        return NULL;
    }
    return r;
}

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const corpus_case *)a)->name, ((const corpus_case *)b)->name);
}

size_t corpus_cases(const char *corpus_dir, corpus_case **out) {
    size_t count = 0, cap = 64;
    corpus_case *cases = malloc(cap * sizeof *cases);
    DIR *root = opendir(corpus_dir);
    if (!cases) abort();
    struct dirent *p;
    while (root && (p = readdir(root)) != NULL) {
        if (p->d_name[0] == '.') continue;
        char *provider_dir = path_join(corpus_dir, p->d_name);
        DIR *provider = is_dir(provider_dir) ? opendir(provider_dir) : NULL;
        struct dirent *c;
        while (provider && (c = readdir(provider)) != NULL) {
            if (c->d_name[0] == '.') continue;
            char *case_dir = path_join(provider_dir, c->d_name);
            if (!is_dir(case_dir)) {
                free(case_dir);
                continue;
            }
            if (count == cap) {
                cap *= 2;
                cases = realloc(cases, cap * sizeof *cases);
                if (!cases) abort();
            }
            strbuf name;
            sb_init(&name);
            sb_printf(&name, "%s/%s", p->d_name, c->d_name);
            cases[count].name = name.data;
            cases[count].dir = case_dir;
            count++;
        }
        if (provider) closedir(provider);
        free(provider_dir);
    }
    if (root) closedir(root);
    qsort(cases, count, sizeof *cases, by_name);
    *out = cases;
    return count;
}

void corpus_cases_free(corpus_case *cases, size_t count) {
    for (size_t i = 0; i < count; i++) {
        free(cases[i].name);
        free(cases[i].dir);
    }
    free(cases);
}

static char *read_case_file(const corpus_case *c, const char *file) {
    char *path = path_join(c->dir, file);
    char *text = read_file(path);
    free(path);
    return text;
}

tr_status corpus_execute(tr_registry *r, const corpus_case *c, char **messages_out, char **err_out) {
    char *calls = read_case_file(c, "calls.json");
    if (!calls) {
        fprintf(stderr, "corpus: %s: cannot read calls.json\n", c->name);
        return TR_STATUS_NOT_FOUND;
    }
    char *options = read_case_file(c, "options.json");
    tr_status st = tr_registry_execute(r, calls, options, messages_out, err_out);
    free(calls);
    free(options);
    return st;
}

/* The scripted host's answer to one host call of a plan, as a results entry. */
static void step_result(strbuf *sb, const json_value *call) {
    const char *name = json_str(json_get(call, "name"));
    const host_kind *kind = NULL;
    for (size_t i = 0; i < kind_count; i++)
        if (strcmp(kinds[i].name, name) == 0) kind = &kinds[i].kind;
    strbuf text;
    sb_init(&text);
    sb_puts(sb, "{\"id\":");
    sb_quote(sb, json_str(json_get(call, "id")));
    if (!kind) {
        sb_puts(sb, ",\"unhandled\":true}");
    } else if (*kind == HOST_ECHO) {
        sb_printf(&text, "%s <- ", name);
        sb_json(&text, json_get(call, "arguments"));
        sb_puts(sb, ",\"content\":");
        sb_quote(sb, text.data);
        sb_puts(sb, "}");
    } else {
        if (*kind == HOST_FAIL) sb_puts(&text, "upstream returned 503");
        else sb_printf(&text, "the host function of \"%s\" panicked: kaboom", name);
        sb_puts(sb, ",\"error\":");
        sb_quote(sb, text.data);
        sb_puts(sb, "}");
    }
    sb_free(&text);
}

tr_status corpus_execute_steps(tr_registry *r, const corpus_case *c, char **messages_out, char **err_out) {
    char *calls = read_case_file(c, "calls.json");
    if (!calls) {
        fprintf(stderr, "corpus: %s: cannot read calls.json\n", c->name);
        return TR_STATUS_NOT_FOUND;
    }
    char *options = read_case_file(c, "options.json");
    char *plan = NULL;
    tr_status st = tr_registry_prepare_calls(r, calls, options, &plan, err_out);
    free(calls);
    free(options);
    if (st != TR_STATUS_OK) return st;
    char *results = corpus_host_results(plan);
    st = tr_registry_finish_calls(r, plan, results, messages_out, err_out);
    free(results);
    tr_string_free(plan);
    return st;
}

char *corpus_host_results(const char *plan) {
    json_value *parsed = json_parse(plan, NULL, 0);
    const json_value *list = json_get(parsed, "calls");
    strbuf results;
    sb_init(&results);
    sb_puts(&results, "[");
    int first = 1;
    /* Answered last to first: finish matches results by id, not by position. */
    for (size_t i = list ? list->count : 0; i-- > 0;) {
        const json_value *call = json_at(list, i);
        const char *run = json_str(json_get(call, "run"));
        if (!run || strcmp(run, "host") != 0) continue;
        if (!first) sb_puts(&results, ",");
        first = 0;
        step_result(&results, call);
    }
    sb_puts(&results, "]");
    json_free(parsed);
    return results.data;
}

char *corpus_expected(const corpus_case *c) {
    char *text = read_case_file(c, "expected.json");
    if (text) {
        size_t n = strlen(text);
        while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r')) text[--n] = '\0';
    }
    return text;
}
