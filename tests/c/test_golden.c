/*
 * Replays golden scenarios (the *.json files of ../shared/golden, recorded from the Python reference) through
 * the C ABI: each discover runs both as tr_registry_call(r, "discover_tools", ...) and on a
 * standalone tr_discoverer, and both must give the recorded names in the recorded order, scores
 * within a relative 1e-9, the same namespace and deferred flags, and a schema exactly when the
 * reference had one.
 *
 * Usage: test_golden FILE.json...
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "test_util.h"
#include "toolregistry.h"

typedef struct {
    const char *file;
    size_t step;
    const char *query;
} where;

/* The registration JSON for a golden tool: metadata fields move under "metadata". */
static char *tool_json(const json_value *tool) {
    strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "{\"name\":");
    sb_json(&sb, json_get(tool, "name"));
    static const char *const plain[] = {"description", "parameters", "namespace"};
    for (size_t i = 0; i < 3; i++) {
        const json_value *v = json_get(tool, plain[i]);
        if (!v) continue;
        sb_printf(&sb, ",\"%s\":", plain[i]);
        sb_json(&sb, v);
    }
    static const char *const meta[] = {"defer", "tags", "search_hint"};
    int any = 0;
    for (size_t i = 0; i < 3; i++) {
        const json_value *v = json_get(tool, meta[i]);
        if (!v) continue;
        sb_printf(&sb, "%s\"%s\":", any ? "," : ",\"metadata\":{", meta[i]);
        sb_json(&sb, v);
        any = 1;
    }
    sb_puts(&sb, any ? "}}" : "}");
    return sb.data;
}

static char *discovery_options_json(const json_value *step) {
    strbuf sb;
    sb_init(&sb);
    /* The golden vectors are the reference's answers; the default profile is enhanced. */
    sb_puts(&sb, "{\"profile\":\"reference\"");
    static const char *const keys[] = {"field_weights", "min_score_ratio", "max_df_ratio"};
    int any = 1;
    for (size_t i = 0; i < 3; i++) {
        const json_value *v = json_get(step, keys[i]);
        if (!v) continue;
        sb_printf(&sb, "%s\"%s\":", any ? "," : "", keys[i]);
        sb_json(&sb, v);
        any = 1;
    }
    sb_puts(&sb, "}");
    return sb.data;
}

/* Compares one answer with the recorded one; prints the first difference. */
static void compare(where w, const char *via, const json_value *expect, const char *got_text) {
    char msg[128] = "";
    json_value *got = json_parse(got_text, msg, sizeof msg);
    CHECK_MSG(got && got->type == JSON_ARRAY, "%s step %zu %s: not a JSON array (%s)", w.file, w.step, via, msg);
    if (!got) return;
    CHECK_MSG(got->count == expect->count, "%s step %zu %s %s: %zu hits, expected %zu", w.file, w.step, via,
              w.query, got->count, expect->count);
    for (size_t i = 0; i < got->count && i < expect->count; i++) {
        const json_value *e = json_at(expect, i), *g = json_at(got, i);
        const char *en = json_str(json_get(e, "name")), *gn = json_str(json_get(g, "name"));
        if (!en || !gn || strcmp(en, gn) != 0) {
            CHECK_MSG(0, "%s step %zu %s \"%s\" rank %zu: expected %s, got %s", w.file, w.step, via, w.query, i,
                      en ? en : "?", gn ? gn : "?");
            break;
        }
        double es = json_get(e, "score")->number, gs = json_get(g, "score") ? json_get(g, "score")->number : NAN;
        CHECK_MSG(fabs(es - gs) <= 1e-9 * fmax(fabs(es), fabs(gs)), "%s step %zu %s \"%s\" %s: score %.17g != %.17g",
                  w.file, w.step, via, w.query, en, gs, es);
        const json_value *ens = json_get(e, "namespace"), *gns = json_get(g, "namespace");
        int same_ns = ens && gns && ens->type == gns->type &&
                      (ens->type == JSON_NULL || strcmp(json_str(ens), json_str(gns)) == 0);
        CHECK_MSG(same_ns, "%s step %zu %s: namespace of %s differs", w.file, w.step, via, en);
        const json_value *ed = json_get(e, "deferred"), *gd = json_get(g, "deferred");
        CHECK_MSG(ed && gd && gd->type == JSON_BOOL && ed->boolean == gd->boolean,
                  "%s step %zu %s: deferred of %s differs", w.file, w.step, via, en);
        int has_schema = json_get(e, "has_schema")->boolean;
        CHECK_MSG(has_schema == (json_get(g, "schema") != NULL), "%s step %zu %s: schema presence of %s differs",
                  w.file, w.step, via, en);
    }
    json_free(got);
}

/* Replays one file; the registry is freed before the discoverer when `registry_first`. */
static size_t replay(const char *path, int registry_first) {
    char *text = read_file(path);
    CHECK_MSG(text != NULL, "cannot read %s", path);
    if (!text) return 0;
    char msg[128] = "";
    json_value *doc = json_parse(text, msg, sizeof msg);
    free(text);
    CHECK_MSG(doc != NULL, "%s: %s", path, msg);
    const json_value *steps = json_get(doc, "steps");
    CHECK_MSG(steps && steps->type == JSON_ARRAY && steps->count > 0, "%s: no steps", path);

    tr_registry *r = NULL;
    tr_discoverer *d = NULL;
    size_t discovers = 0;
    OK(tr_registry_new(NULL, &r, &err));
    for (size_t i = 0; steps && i < steps->count; i++) {
        const json_value *step = json_at(steps, i);
        const char *op = json_str(json_get(step, "op"));
        const char *name = json_str(json_get(step, "name"));
        if (strcmp(op, "register") == 0) {
            char *tool = tool_json(json_get(step, "tool")), *names = NULL;
            OK(tr_registry_register(r, tool, &names, &err));
            tr_string_free(names);
            free(tool);
        } else if (strcmp(op, "unregister") == 0) {
            OK(tr_registry_unregister(r, name, &err));
        } else if (strcmp(op, "disable") == 0 || strcmp(op, "enable") == 0) {
            OK(tr_registry_set_enabled(r, name, op[0] == 'e', &err));
        } else if (strcmp(op, "set_metadata") == 0) {
            strbuf meta;
            sb_init(&meta);
            sb_json(&meta, json_get(step, "metadata"));
            OK(tr_registry_set_metadata(r, name, meta.data, &err));
            sb_free(&meta);
        } else if (strcmp(op, "enable_discovery") == 0) {
            char *options = discovery_options_json(step);
            OK(tr_registry_enable_discovery(r, options, &err));
            tr_discoverer_free(d);
            d = NULL;
            OK(tr_discoverer_new(r, options, &d, &err));
            free(options);
        } else if (strcmp(op, "discover") == 0) {
            where w = {path, i, json_str(json_get(step, "query"))};
            int top_k = (int)json_get(step, "top_k")->number;
            strbuf args, opts;
            sb_init(&args);
            sb_init(&opts);
            sb_puts(&args, "{\"query\":");
            sb_quote(&args, w.query);
            sb_printf(&args, ",\"top_k\":%d}", top_k);
            sb_printf(&opts, "{\"top_k\":%d}", top_k);

            char *via_call = NULL, *via_discoverer = NULL, *err_call = NULL, *err_disc = NULL;
            tr_status s1 = tr_registry_call(r, "discover_tools", args.data, &via_call, &err_call);
            tr_status s2 = tr_discoverer_discover(d, w.query, opts.data, &via_discoverer, &err_disc);
            const json_value *expect = json_get(step, "expect");
            if (expect) {
                CHECK_MSG(s1 == TR_STATUS_OK, "%s step %zu call: %s", path, i, err_call ? err_call : "");
                CHECK_MSG(s2 == TR_STATUS_OK, "%s step %zu discoverer: %s", path, i, err_disc ? err_disc : "");
                if (s1 == TR_STATUS_OK) compare(w, "discover_tools", expect, via_call);
                if (s2 == TR_STATUS_OK) compare(w, "discoverer", expect, via_discoverer);
            } else {
                CHECK_MSG(json_get(step, "expect_error") != NULL, "%s step %zu: neither expect nor expect_error",
                          path, i);
                CHECK_MSG(s1 == TR_STATUS_INVALID_ARGUMENT && s2 == TR_STATUS_INVALID_ARGUMENT,
                          "%s step %zu: expected INVALID_ARGUMENT for \"%s\", got %s / %s", path, i, w.query,
                          tr_status_name(s1), tr_status_name(s2));
            }
            tr_string_free(via_call);
            tr_string_free(via_discoverer);
            tr_string_free(err_call);
            tr_string_free(err_disc);
            sb_free(&args);
            sb_free(&opts);
            discovers++;
        } else {
            CHECK_MSG(0, "%s step %zu: unknown op %s", path, i, op);
        }
    }
    if (registry_first) {
        tr_registry_free(r);
        tr_discoverer_free(d);
    } else {
        tr_discoverer_free(d);
        tr_registry_free(r);
    }
    json_free(doc);
    return discovers;
}

int main(int argc, char **argv) {
    CHECK_MSG(argc > 1, "usage: %s FILE.json...", argv[0]);
    for (int i = 1; i < argc; i++) {
        int before = test_failures;
        size_t n = replay(argv[i], i % 2);
        CHECK_MSG(n > 0, "%s: no discover steps replayed", argv[i]);
        printf("%s: %zu discovers replayed through tr_registry_call and tr_discoverer, %s\n", argv[i], n,
               test_failures == before ? "all match" : "MISMATCHES");
    }
    return test_exit_code("test_golden");
}
