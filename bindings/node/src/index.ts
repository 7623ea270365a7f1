/**
 * toolregistry for Node: tool registry, tool discovery and the tool loop for LLM agents, over
 * the toolregistry-rs C library (loaded through koffi; see native.ts for where it is found).
 */
export { Registry, Discoverer, version, statusName } from "./registry.js";
export { Conversation } from "./conversation.js";
export { ToolRegistryError, ToolError, ClosedError, Status, type StatusName } from "./errors.js";
export type { HostFunction, FallbackFunction, CallContext } from "./host.js";
export type { EmbedFunction, EmbedderOptions } from "./embed.js";
export { libraryPath, LIBRARY_ENV } from "./native.js";
export type * from "./types.js";
