/*
 * A small JSON reader and writer for the C tests: enough to read the golden vectors and the
 * library's answers. Not part of the library.
 */
#ifndef TR_TEST_JSON_H
#define TR_TEST_JSON_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value {
    json_type type;
    bool boolean;
    double number;
    char *string;               /* JSON_STRING: NUL-terminated UTF-8 */
    size_t count;               /* JSON_ARRAY / JSON_OBJECT: number of items */
    struct json_value **items;  /* JSON_ARRAY / JSON_OBJECT: the values */
    char **keys;                /* JSON_OBJECT: the keys, parallel to items */
} json_value;

/* Parses `text`; NULL on error (then `err`, if not NULL, receives a short message). */
json_value *json_parse(const char *text, char *err, size_t err_len);
void json_free(json_value *v);

/* Member of an object, or NULL (also when `obj` is NULL or not an object). */
const json_value *json_get(const json_value *obj, const char *key);
/* Item of an array, or NULL. */
const json_value *json_at(const json_value *arr, size_t i);
/* The string of a JSON_STRING value, or NULL. */
const char *json_str(const json_value *v);

/* A growable string. */
typedef struct {
    char *data;
    size_t len, cap;
} strbuf;
void sb_init(strbuf *sb);
void sb_free(strbuf *sb);
void sb_puts(strbuf *sb, const char *s);
void sb_printf(strbuf *sb, const char *fmt, ...);
/* Appends `s` as a JSON string literal. */
void sb_quote(strbuf *sb, const char *s);
/* Appends `v` as compact JSON. */
void sb_json(strbuf *sb, const json_value *v);

/* Reads a whole file; NULL on error. Free with free(). */
char *read_file(const char *path);

#endif
