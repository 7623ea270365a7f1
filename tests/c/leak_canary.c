/*
 * Deliberately leaks one library string. CTest runs it under the same valgrind command as the
 * other C tests and requires valgrind to fail it with a definite leak: proof that the memory
 * checker would catch a leak in the real tests (see cmake/ExpectLeak.cmake).
 */
#include <stdio.h>

#include "toolregistry.h"

int main(void) {
    tr_registry *r = NULL;
    char *names = NULL;
    if (tr_registry_new(NULL, &r, NULL) != TR_STATUS_OK) return 2;
    if (tr_registry_register(r, "{\"name\": \"leaky\"}", &names, NULL) != TR_STATUS_OK) return 2;
    printf("registered %s and never freed the string\n", names);
    names = NULL; /* the only pointer to the string is gone: a definite leak */
    tr_registry_free(r);
    return 0;
}
