import { describe, expect, it } from "vitest";
import { resolvesAsString } from "../../../src/kpt/yaml/format-scalar.js";

/**
 * Which plain texts yaml.v3 reads as strings, as its resolve.go decides (every `_` taken out, then Go's
 * ParseInt/ParseUint at base 0 and 64 bits, then its float pattern and ParseFloat): a string that
 * reads as a number is quoted when written, any other is left plain, as kpt writes it. A number Go
 * cannot hold (an overflow) is no number: an abbreviated commit such as `5e79295663` stays plain, as
 * kpt writes it in an upstreamLock.
 */
describe("resolvesAsString: yaml.v3's resolve", () => {
  it.each([
    ["5e79295663", true], // a float pattern Go's ParseFloat overflows: a string
    ["1e400", true],
    ["0x1FFFFFFFFFFFFFFFF", true], // past uint64, and no float pattern
    ["abc", true],
    ["1e-400", false], // underflows to 0, no error: a float
    ["1e5", false],
    ["1.5", false],
    ["+.5", false],
    ["1_000.5", false], // underscores out first
    ["1__0", false],
    ["0xFFFFFFFFFFFFFFFF", false], // uint64
    ["-9223372036854775808", false],
    ["-9223372036854775809", false], // past int64, but a float
    ["99999999999999999999", false], // past uint64, but a float
    ["0777", false],
    ["0o17", false],
    ["0b11", false],
    ["-0x10", false],
    ["08", false], // no octal, but a float
  ])("%s → %s", (text, isString) => {
    expect(resolvesAsString(text)).toBe(isString);
  });
});
