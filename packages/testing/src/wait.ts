/** Polls (a macrotask per round, at most ~2 s) until `find` returns something: emails sent in the background. */
export async function waitFor<T>(find: () => T | undefined): Promise<T> {
  for (let round = 0; round < 200; round++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("waited in vain");
}
