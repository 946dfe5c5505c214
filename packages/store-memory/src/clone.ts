/**
 * A deep copy of plain data: objects with the Object prototype, arrays and primitives, which is
 * what the stores hold. Several times faster than `structuredClone` on a user record (GET /me
 * reads one per request); anything else (a Date, bytes, a Map) is handed to `structuredClone`.
 */
export function clonePlain<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(clonePlain) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = clonePlain((value as Record<string, unknown>)[key]);
    // A `__proto__` key (JSON.parse makes one) stays a key: assigning it would set the prototype.
    if (key === "__proto__")
      Object.defineProperty(copy, key, {
        value: field,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else copy[key] = field;
  }
  return copy as T;
}
