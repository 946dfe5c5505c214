/**
 * Whether `value` is a base URL as an option takes it: http or https, without query, fragment or
 * credentials (`https://acme.test`, `https://acme.test/app`).
 */
export function isBareHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol, search, hash, username, password } = new URL(value);
  return (
    (protocol === "http:" || protocol === "https:") &&
    search === "" &&
    hash === "" &&
    username === "" &&
    password === ""
  );
}
