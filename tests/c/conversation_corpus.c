#define _POSIX_C_SOURCE 200809L
#include "conversation_corpus.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json.h"

static int by_name(const void *a, const void *b) {
    return strcmp(((const corpus_case *)a)->name, ((const corpus_case *)b)->name);
}

size_t conversation_cases(const char *corpus_dir, corpus_case **out) {
    size_t count = 0, cap = 16;
    corpus_case *cases = malloc(cap * sizeof *cases);
    if (!cases) abort();
    DIR *root = opendir(corpus_dir);
    struct dirent *p;
    while (root && (p = readdir(root)) != NULL) {
        if (p->d_name[0] == '.') continue;
        strbuf dir;
        sb_init(&dir);
        sb_printf(&dir, "%s/%s", corpus_dir, p->d_name);
        struct stat st;
        if (stat(dir.data, &st) != 0 || !S_ISDIR(st.st_mode)) {
            sb_free(&dir);
            continue;
        }
        if (count == cap) {
            cap *= 2;
            cases = realloc(cases, cap * sizeof *cases);
            if (!cases) abort();
        }
        strbuf name;
        sb_init(&name);
        sb_puts(&name, p->d_name);
        cases[count].name = name.data;
        cases[count].dir = dir.data;
        count++;
    }
    if (root) closedir(root);
    qsort(cases, count, sizeof *cases, by_name);
    *out = cases;
    return count;
}

char *conversation_case_file(const corpus_case *c, const char *file) {
    strbuf path;
    sb_init(&path);
    sb_printf(&path, "%s/%s", c->dir, file);
    char *text = read_file(path.data);
    sb_free(&path);
    if (text) {
        size_t n = strlen(text);
        while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r')) text[--n] = '\0';
    }
    return text;
}

/* tr_conversation_prepare_calls, the scripted hosts, tr_conversation_finish_calls. */
static tr_status run_steps(tr_conversation *conv, const char *calls, char **messages_out, char **err_out) {
    char *plan = NULL;
    tr_status st = tr_conversation_prepare_calls(conv, calls, NULL, &plan, err_out);
    if (st != TR_STATUS_OK) return st;
    char *results = corpus_host_results(plan);
    st = tr_conversation_finish_calls(conv, plan, results, messages_out, err_out);
    free(results);
    tr_string_free(plan);
    return st;
}

tr_status conversation_run_case(const char *corpus_dir, const corpus_case *c, char **messages_out, char **loaded_out,
                                char **tools_out, char **err_out) {
    return conversation_run_case_with(corpus_dir, c, 0, messages_out, loaded_out, tools_out, err_out);
}

tr_status conversation_run_case_with(const char *corpus_dir, const corpus_case *c, int steps, char **messages_out,
                                     char **loaded_out, char **tools_out, char **err_out) {
    char *options = conversation_case_file(c, "options.json");
    char *calls = conversation_case_file(c, "calls.json");
    tr_registry *r = options && calls ? corpus_registry(corpus_dir) : NULL;
    if (!r) {
        fprintf(stderr, "conversation corpus: %s: cannot read the case or build the fixture\n", c->name);
        free(options);
        free(calls);
        return TR_STATUS_NOT_FOUND;
    }
    tr_conversation *conv = NULL;
    tr_status st = tr_conversation_new(r, options, &conv, err_out);
    /* The conversation keeps the registry's state: the handle may go first. */
    tr_registry_free(r);
    if (st == TR_STATUS_OK)
        st = steps ? run_steps(conv, calls, messages_out, err_out)
                   : tr_conversation_execute(conv, calls, NULL, messages_out, err_out);
    if (st == TR_STATUS_OK) {
        st = tr_conversation_loaded(conv, loaded_out, err_out);
        if (st == TR_STATUS_OK && tools_out) {
            st = tr_conversation_tools(conv, tools_out, err_out);
            if (st != TR_STATUS_OK) {
                tr_string_free(*loaded_out);
                *loaded_out = NULL;
            }
        }
        if (st != TR_STATUS_OK) {
            tr_string_free(*messages_out);
            *messages_out = NULL;
        }
    }
    tr_conversation_free(conv);
    free(options);
    free(calls);
    return st;
}
