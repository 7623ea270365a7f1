// Tools shared by the C++ tests, and a function defined in a second translation unit (the
// wrapper is header-only: including it from two .cpp files must link).
#pragma once

#include <string>
#include <vector>

#include "toolregistry.hpp"
#include "toolregistry.hpp"  // included twice on purpose: the include guard must hold

namespace fixtures {

// One tool in each accepted shape, with a namespace and metadata.
inline const char* const kShapes = R"([
  {"name": "flat_add", "description": "Add two numbers together.",
   "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}},
  {"type": "function", "function": {"name": "chat_weather", "description": "Get the weather forecast for a city.",
   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
  {"type": "function", "name": "responses_translate", "description": "Translate text into another language.",
   "parameters": {"type": "object", "properties": {"text": {"type": "string"}, "target": {"type": "string"}}}},
  {"name": "anthropic_send_email", "description": "Send an email to a recipient. Uses SMTP.",
   "input_schema": {"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}}},
   "metadata": {"defer": true, "tags": ["network"], "search_hint": "mail message"}},
  {"name": "mcp_read_file", "description": "Read the contents of a file from disk.",
   "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
   "metadata": {"tags": ["read_only", "file_system"]}},
  {"name": "list_issues", "namespace": "github", "description": "List the issues of a repository!",
   "metadata": {"defer": true}}
])";

inline const std::vector<std::string> kNames = {"flat_add",      "chat_weather",        "responses_translate",
                                                "anthropic_send_email", "mcp_read_file", "github-list_issues"};

// Defined in second_tu.cpp: registers kShapes through the wrapper from another translation unit.
toolregistry::Registry make_registry();

}  // namespace fixtures
