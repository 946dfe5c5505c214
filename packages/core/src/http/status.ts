// The status table lives beside the error codes (errors.ts), where `AuthError.status` reads it;
// the HTTP layer imports it from here.
export { STATUS_BY_CODE, statusForCode } from "../errors.js";
