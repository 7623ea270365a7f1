// Compiles include/toolregistry.h as C++ (extern "C", the int32_t-based enum) with every warning
// as an error, and calls through it once so the C linkage is exercised too.
#include "toolregistry.h"

#include <cstdio>
#include <cstring>
#include <type_traits>

static_assert(std::is_same<std::underlying_type<tr_status>::type, int32_t>::value,
              "tr_status is int32_t-sized in C++");

int main() {
    tr_registry *r = nullptr;
    char *err = nullptr;
    tr_status st = tr_registry_new(nullptr, &r, &err);
    if (st != TR_STATUS_OK || std::strcmp(tr_version(), TOOLREGISTRY_VERSION) != 0) {
        std::fprintf(stderr, "header_cxx: %s\n", tr_status_name(st));
        tr_string_free(err);
        return 1;
    }
    // The two-step tool loop through the header: an empty batch plans nothing and finishes empty.
    char *plan = nullptr, *messages = nullptr;
    st = tr_registry_prepare_calls(r, "[]", nullptr, &plan, &err);
    if (st == TR_STATUS_OK) st = tr_registry_finish_calls(r, plan, "[]", &messages, &err);
    if (st != TR_STATUS_OK || std::strcmp(messages, "[]") != 0) {
        std::fprintf(stderr, "header_cxx: two steps: %s %s\n", tr_status_name(st), err ? err : "");
        tr_string_free(err);
        return 1;
    }
    tr_string_free(plan);
    tr_string_free(messages);
    tr_registry_free(r);
    std::printf("header_cxx: toolregistry %s via the C header from C++\n", tr_version());
    return 0;
}
