/*
 * Assertion helpers shared by the C test programs. A failed CHECK prints where and why and counts
 * the failure; main() returns test_exit_code(), so one run reports every broken check.
 */
#ifndef TR_TEST_UTIL_H
#define TR_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "toolregistry.h"

static int test_failures = 0;
static int test_checks = 0;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        test_checks++;                                                                \
        if (!(cond)) {                                                                \
            test_failures++;                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
        }                                                                             \
    } while (0)

#define CHECK_MSG(cond, ...)                                                          \
    do {                                                                              \
        test_checks++;                                                                \
        if (!(cond)) {                                                                \
            test_failures++;                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
        }                                                                             \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                            \
    do {                                                                              \
        const char *check_a_ = (a), *check_b_ = (b);                                  \
        CHECK_MSG(check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0,            \
                  "\"%s\" != \"%s\"", check_a_ ? check_a_ : "(null)",                 \
                  check_b_ ? check_b_ : "(null)");                                    \
    } while (0)

static inline int test_exit_code(const char *name) {
    if (test_failures) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, test_failures, test_checks);
        return 1;
    }
    printf("%s: all %d checks passed\n", name, test_checks);
    return 0;
}

/* OK(call): runs `call`, which may use a fresh `char *err` as its err_out; a failure is reported
 * with the library's message, which is then freed. */
static inline void report_status(const char *where, int line, tr_status st, char *err) {
    test_checks++;
    if (st != TR_STATUS_OK) {
        test_failures++;
        fprintf(stderr, "%s:%d: %s: %s\n", where, line, tr_status_name(st), err ? err : "(no message)");
    }
    tr_string_free(err);
}
#define OK(expr_with_err)                                                             \
    do {                                                                              \
        char *err = NULL;                                                             \
        tr_status ok_st_ = (expr_with_err);                                           \
        report_status(__FILE__, __LINE__, ok_st_, err);                               \
    } while (0)

#endif
