#define _POSIX_C_SOURCE 200809L
#include "json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    return q;
}

/* ---- strbuf -------------------------------------------------------------------------------- */

void sb_init(strbuf *sb) {
    sb->data = xrealloc(NULL, 64);
    sb->data[0] = '\0';
    sb->len = 0;
    sb->cap = 64;
}

void sb_free(strbuf *sb) {
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

static void sb_reserve(strbuf *sb, size_t extra) {
    if (sb->len + extra + 1 <= sb->cap) return;
    while (sb->len + extra + 1 > sb->cap) sb->cap *= 2;
    sb->data = xrealloc(sb->data, sb->cap);
}

static void sb_putn(strbuf *sb, const char *s, size_t n) {
    sb_reserve(sb, n);
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void sb_puts(strbuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }

void sb_printf(strbuf *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) abort();
    sb_reserve(sb, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void sb_quote(strbuf *sb, const char *s) {
    sb_putn(sb, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': sb_puts(sb, "\\\""); break;
        case '\\': sb_puts(sb, "\\\\"); break;
        case '\n': sb_puts(sb, "\\n"); break;
        case '\r': sb_puts(sb, "\\r"); break;
        case '\t': sb_puts(sb, "\\t"); break;
        default:
            if (*p < 0x20) sb_printf(sb, "\\u%04x", *p);
            else sb_putn(sb, (const char *)p, 1);
        }
    }
    sb_putn(sb, "\"", 1);
}

void sb_json(strbuf *sb, const json_value *v) {
    switch (v->type) {
    case JSON_NULL: sb_puts(sb, "null"); break;
    case JSON_BOOL: sb_puts(sb, v->boolean ? "true" : "false"); break;
    case JSON_NUMBER:
        /* %.17g round-trips every double. */
        sb_printf(sb, "%.17g", v->number);
        break;
    case JSON_STRING: sb_quote(sb, v->string); break;
    case JSON_ARRAY:
    case JSON_OBJECT:
        sb_puts(sb, v->type == JSON_ARRAY ? "[" : "{");
        for (size_t i = 0; i < v->count; i++) {
            if (i) sb_puts(sb, ",");
            if (v->type == JSON_OBJECT) {
                sb_quote(sb, v->keys[i]);
                sb_puts(sb, ":");
            }
            sb_json(sb, v->items[i]);
        }
        sb_puts(sb, v->type == JSON_ARRAY ? "]" : "}");
        break;
    }
}

/* ---- parser -------------------------------------------------------------------------------- */

typedef struct {
    const char *p;
    const char *start;
    char *err;
    size_t err_len;
    int depth;
} parser;

static void fail(parser *ps, const char *what) {
    if (ps->err && ps->err_len) {
        snprintf(ps->err, ps->err_len, "%s at offset %ld", what, (long)(ps->p - ps->start));
        ps->err = NULL; /* keep the first message */
    }
}

static void skip_ws(parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static json_value *new_value(json_type t) {
    json_value *v = xrealloc(NULL, sizeof *v);
    memset(v, 0, sizeof *v);
    v->type = t;
    return v;
}

static int hex4(const char *s, uint32_t *out) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static void put_utf8(strbuf *sb, uint32_t cp) {
    char b[4];
    size_t n;
    if (cp < 0x80) { b[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { b[0] = (char)(0xC0 | (cp >> 6)); b[1] = (char)(0x80 | (cp & 0x3F)); n = 2; }
    else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12)); b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18)); b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
    }
    sb_putn(sb, b, n);
}

/* Parses a string literal at ps->p (which points at the opening quote). */
static char *parse_string(parser *ps) {
    strbuf sb;
    sb_init(&sb);
    ps->p++;
    for (;;) {
        unsigned char c = (unsigned char)*ps->p;
        if (c == '"') { ps->p++; return sb.data; }
        if (c == '\0' || c < 0x20) { fail(ps, "unterminated string or control character"); break; }
        if (c != '\\') { sb_putn(&sb, ps->p, 1); ps->p++; continue; }
        ps->p++;
        char e = *ps->p++;
        switch (e) {
        case '"': sb_puts(&sb, "\""); break;
        case '\\': sb_puts(&sb, "\\"); break;
        case '/': sb_puts(&sb, "/"); break;
        case 'b': sb_puts(&sb, "\b"); break;
        case 'f': sb_puts(&sb, "\f"); break;
        case 'n': sb_puts(&sb, "\n"); break;
        case 'r': sb_puts(&sb, "\r"); break;
        case 't': sb_puts(&sb, "\t"); break;
        case 'u': {
            uint32_t cp, lo;
            if (!hex4(ps->p, &cp)) { fail(ps, "bad \\u escape"); goto error; }
            ps->p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (ps->p[0] != '\\' || ps->p[1] != 'u' || !hex4(ps->p + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                    fail(ps, "unpaired surrogate");
                    goto error;
                }
                ps->p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                fail(ps, "unpaired surrogate");
                goto error;
            }
            put_utf8(&sb, cp);
            break;
        }
        default: fail(ps, "bad escape"); goto error;
        }
    }
error:
    sb_free(&sb);
    return NULL;
}

static json_value *parse_value(parser *ps);

static json_value *parse_container(parser *ps, bool object) {
    json_value *v = new_value(object ? JSON_OBJECT : JSON_ARRAY);
    size_t cap = 0;
    char close = object ? '}' : ']';
    if (++ps->depth > 512) { fail(ps, "nested too deeply"); goto error; }
    ps->p++;
    skip_ws(ps);
    if (*ps->p == close) { ps->p++; ps->depth--; return v; }
    for (;;) {
        char *key = NULL;
        skip_ws(ps);
        if (object) {
            if (*ps->p != '"') { fail(ps, "expected a key"); goto error; }
            key = parse_string(ps);
            if (!key) goto error;
            skip_ws(ps);
            if (*ps->p != ':') { free(key); fail(ps, "expected ':'"); goto error; }
            ps->p++;
        }
        json_value *item = parse_value(ps);
        if (!item) { free(key); goto error; }
        if (v->count == cap) {
            cap = cap ? cap * 2 : 4;
            v->items = xrealloc(v->items, cap * sizeof *v->items);
            if (object) v->keys = xrealloc(v->keys, cap * sizeof *v->keys);
        }
        v->items[v->count] = item;
        if (object) v->keys[v->count] = key;
        v->count++;
        skip_ws(ps);
        if (*ps->p == ',') { ps->p++; continue; }
        if (*ps->p == close) { ps->p++; ps->depth--; return v; }
        fail(ps, "expected ',' or the end of the container");
        goto error;
    }
error:
    json_free(v);
    return NULL;
}

static json_value *parse_value(parser *ps) {
    skip_ws(ps);
    const char *p = ps->p;
    if (*p == '{' || *p == '[') return parse_container(ps, *p == '{');
    if (*p == '"') {
        char *s = parse_string(ps);
        if (!s) return NULL;
        json_value *v = new_value(JSON_STRING);
        v->string = s;
        return v;
    }
    if (strncmp(p, "null", 4) == 0) { ps->p += 4; return new_value(JSON_NULL); }
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0) {
        json_value *v = new_value(JSON_BOOL);
        v->boolean = *p == 't';
        ps->p += v->boolean ? 4 : 5;
        return v;
    }
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
        char *end;
        double d = strtod(p, &end);
        if (end == p) { fail(ps, "bad number"); return NULL; }
        json_value *v = new_value(JSON_NUMBER);
        v->number = d;
        ps->p = end;
        return v;
    }
    fail(ps, "unexpected character");
    return NULL;
}

json_value *json_parse(const char *text, char *err, size_t err_len) {
    parser ps = {text, text, err, err_len, 0};
    json_value *v = parse_value(&ps);
    if (!v) return NULL;
    skip_ws(&ps);
    if (*ps.p != '\0') {
        fail(&ps, "trailing characters");
        json_free(v);
        return NULL;
    }
    return v;
}

void json_free(json_value *v) {
    if (!v) return;
    for (size_t i = 0; i < v->count; i++) {
        json_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}

const json_value *json_get(const json_value *obj, const char *key) {
    if (!obj || obj->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->keys[i], key) == 0) return obj->items[i];
    return NULL;
}

const json_value *json_at(const json_value *arr, size_t i) {
    if (!arr || arr->type != JSON_ARRAY || i >= arr->count) return NULL;
    return arr->items[i];
}

const char *json_str(const json_value *v) { return v && v->type == JSON_STRING ? v->string : NULL; }

char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    strbuf sb;
    sb_init(&sb);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&sb, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) { sb_free(&sb); return NULL; }
    return sb.data;
}
