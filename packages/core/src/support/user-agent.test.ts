import { describe, expect, it } from "vitest";
import { describeDevice } from "./user-agent.js";

const CHROME_LINUX =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

describe("describeDevice", () => {
  it("describeDevice - what the client stated wins; the User-Agent fills in what it left out", () => {
    expect(describeDevice(undefined, CHROME_LINUX)).toEqual({ browser: "Chrome 131", os: "Linux" });
    expect(describeDevice({ browser: " My app\u0007 " }, CHROME_LINUX)).toEqual({
      browser: "My app",
      os: "Linux",
    });
    expect(describeDevice({ browser: "A", os: "B" }, CHROME_LINUX)).toEqual({ browser: "A", os: "B" });
    expect(describeDevice(undefined, undefined)).toEqual({ browser: null, os: null });
  });

  it("describeDevice - a remembered parse answers the same, and 1,000 distinct strings after it change nothing for the others", () => {
    const first = describeDevice(undefined, FIREFOX_WINDOWS);
    expect(first).toEqual({ browser: "Firefox 133", os: "Windows 10" });
    for (let i = 0; i < 1_000; i += 1) {
      const agent = `${CHROME_LINUX} Probe/${i}`;
      expect(describeDevice(undefined, agent)).toEqual({ browser: "Chrome 131", os: "Linux" });
    }
    expect(describeDevice(undefined, FIREFOX_WINDOWS)).toEqual(first);
    expect(describeDevice({ os: "Stated" }, FIREFOX_WINDOWS)).toEqual({
      browser: "Firefox 133",
      os: "Stated",
    });
  });
});
