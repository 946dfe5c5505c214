import { afterAll, beforeAll, describe, it } from "vitest";
import { ExampleFixture, type ExampleSuiteOptions } from "./example-suite-fixture.js";
import { EXAMPLE_TESTS } from "./example-suite-tests.js";

export type { ExampleSuiteOptions } from "./example-suite-fixture.js";

/**
 * What both example servers must do, checked the same way for each: the tests of `EXAMPLE_TESTS`,
 * each a named record run against one app started in-process (the `ExampleFixture`).
 */
export function runExampleSuite(options: ExampleSuiteOptions): void {
  describe(`example: ${options.name}`, () => {
    const fixture = new ExampleFixture(options);
    beforeAll(() => fixture.open());
    afterAll(() => fixture.close());
    for (const [name, body] of Object.entries(EXAMPLE_TESTS)) {
      it.skipIf(body.skipIf?.(options) ?? false)(name, () => body(fixture), body.timeout);
    }
  });
}
