// toolregistry.hpp: header-only C++17 wrapper over the toolregistry C ABI (toolregistry.h).
//
//   toolregistry::Registry registry;
//   registry.register_tools(R"({"name": "send_email", "description": "Send an email.",
//                               "metadata": {"defer": true}})");
//   auto discoverer = registry.discoverer();
//   for (const auto& hit : discoverer.discover("email someone", 5))
//       std::cout << hit.name << ' ' << hit.score << '\n';
//
// Conventions:
//  - Registry and Discoverer own their C handle (move-only; a moved-from object holds no handle,
//    and calls on it throw Error with Status::NullArgument). A Discoverer shares the registry's
//    state, so it may outlive the Registry it came from.
//  - Every failure throws toolregistry::Error (a std::runtime_error) whose what() is the library's
//    one-line message and whose status() is the C status. Strings the library returns are taken
//    into a std::string (and freed with tr_string_free) before anything can throw.
//  - Strings in are std::string_view (copied to add the NUL the C ABI needs; a view containing a
//    NUL byte is refused with Status::InvalidArgument). For an optional JSON options argument an
//    empty view means "defaults" (NULL in C). Strings out are std::string.
//  - Threads: like the C handles, a Registry and a Discoverer may be used from many threads at
//    once (discovers run in parallel); moving or destroying one while another thread uses it is
//    not allowed.
//  - No third-party JSON library: typed results (Hit, Summary, Explanation, ToolStatus) come
//    from a small parser in namespace detail; every call also has a raw-JSON form.
//  - Host functions (register_callable, set_fallback) are std::function objects the registry
//    owns: they are destroyed exactly once, when the tool is unregistered or replaced, the
//    fallback replaced, the registry destroyed, or the registration fails. An exception never
//    reaches the C library: ToolError becomes an error result with its what() as-is, any other
//    exception `the host function of "NAME" panicked: <what()>` (see ToolError).
//
//   registry.register_callable(R"({"name": "get_weather", "description": "Weather for a city.",
//       "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}})",
//       [](std::string_view args) -> std::string { return weather_service(args); });
//   std::string messages = registry.execute(model_reply_json);  // the next turn's messages
//  - Or the host runs the calls on its own executor: prepare_calls(reply) gives a Plan (the calls
//    to run, each with concurrency_safe), finish_calls(plan, results) the same messages.
#ifndef TOOLREGISTRY_HPP
#define TOOLREGISTRY_HPP

// The wrapper is split by concept: toolregistry/types.hpp (statuses, errors, value types),
// toolregistry/detail.hpp (internals), toolregistry/handles.hpp (Registry, Discoverer,
// Conversation). Include this header, not the parts.
#include "toolregistry/handles.hpp"

#endif  // TOOLREGISTRY_HPP
