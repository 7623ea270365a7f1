/** The error types: the library's failures, and use after close. */

/** `tr_status` values; part of the ABI, never renumbered. */
export const Status = {
  OK: 0,
  NULL_ARGUMENT: 1,
  INVALID_UTF8: 2,
  INVALID_JSON: 3,
  INVALID_ARGUMENT: 4,
  NOT_FOUND: 5,
  TOO_LARGE: 6,
  INTERNAL: 7,
  PANIC: 8,
} as const;

/** The C name of a status, e.g. `"TR_STATUS_NOT_FOUND"`. */
export type StatusName =
  | "TR_STATUS_NULL_ARGUMENT"
  | "TR_STATUS_INVALID_UTF8"
  | "TR_STATUS_INVALID_JSON"
  | "TR_STATUS_INVALID_ARGUMENT"
  | "TR_STATUS_NOT_FOUND"
  | "TR_STATUS_TOO_LARGE"
  | "TR_STATUS_INTERNAL"
  | "TR_STATUS_PANIC"
  | "TR_STATUS_UNKNOWN";

const NAMES: Record<number, StatusName> = {
  1: "TR_STATUS_NULL_ARGUMENT",
  2: "TR_STATUS_INVALID_UTF8",
  3: "TR_STATUS_INVALID_JSON",
  4: "TR_STATUS_INVALID_ARGUMENT",
  5: "TR_STATUS_NOT_FOUND",
  6: "TR_STATUS_TOO_LARGE",
  7: "TR_STATUS_INTERNAL",
  8: "TR_STATUS_PANIC",
};

/**
 * A failure the library reported (or that the binding refused before the call, for the same
 * reason): `status` is the C status name, `statusCode` its number, `message` the library's
 * one-line message saying what was wrong and where.
 */
export class ToolRegistryError extends Error {
  readonly status: StatusName;
  readonly statusCode: number;

  constructor(statusCode: number, message: string) {
    const status = NAMES[statusCode] ?? "TR_STATUS_UNKNOWN";
    super(message || status);
    this.name = "ToolRegistryError";
    this.status = status;
    this.statusCode = statusCode;
  }
}

/** A method called on a Registry, Discoverer or Conversation after its `close()`. */
export class ClosedError extends Error {
  readonly code = "ERR_TOOLREGISTRY_CLOSED";

  constructor(kind: string) {
    super(`toolregistry: this ${kind} is closed`);
    this.name = "ClosedError";
  }
}

/**
 * Thrown by a host function to fail its call with exactly this message ("Error: " + message is
 * what the model reads). Any other throw or rejection fails the call with
 * `the host function of "NAME" panicked: MESSAGE`, as in every other binding.
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}
