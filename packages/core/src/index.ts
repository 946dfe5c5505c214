export { AuthError, CooldownError, ERROR_CODES, isAuthError, ValidationError } from "./errors.js";
export type { ErrorCode, ValidationIssue } from "./errors.js";
export { STATUS_BY_CODE, statusForCode } from "./http/status.js";
export type * from "./ports/index.js";
export { systemClock } from "./ports/clock.js";
export { consoleLogger, silentLogger } from "./ports/logger.js";
