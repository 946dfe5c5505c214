/**
 * A pino-compatible logger: pass a pino instance, or anything with these four methods.
 * Portcullis logs objects first, message second, and never logs a password, hash, token or secret.
 */
export interface Logger {
  debug(object: Record<string, unknown>, message?: string): void;
  info(object: Record<string, unknown>, message?: string): void;
  warn(object: Record<string, unknown>, message?: string): void;
  error(object: Record<string, unknown>, message?: string): void;
}

/** The default: warnings and errors as single JSON lines on stderr. */
export const consoleLogger: Logger = {
  debug() {},
  info() {},
  warn(object, message) {
    process.stderr.write(`${JSON.stringify({ level: "warn", time: Date.now(), ...object, msg: message })}\n`);
  },
  error(object, message) {
    process.stderr.write(
      `${JSON.stringify({ level: "error", time: Date.now(), ...object, msg: message })}\n`,
    );
  },
};

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
