import { RE2JS } from "re2js";

/**
 * A regular expression as Go's `regexp` package reads and runs it — the functions' own engine (RE2):
 * Go's syntax (`(?i)`, `\pL`, `\Q…\E`, `(?P<name>…)`; no look-around or back-references), Go's error
 * text (`error parsing regexp: missing closing ): `(``), and time linear in the input, so a pattern from
 * a package (`(a+)+$`) cannot hold up a render. Matching is unanchored, as `MatchString`.
 */
export interface GoRegexp {
  /** `MatchString`: whether the expression matches anywhere in the text. */
  test(text: string): boolean;
  /** `FindStringSubmatch`: the match and its groups (a group that took no part is ""), or undefined. */
  submatch(text: string): string[] | undefined;
}

/** The compiled expression; throws Go's `error parsing regexp: …` for one Go refuses. */
export function compileGoRegexp(pattern: string): GoRegexp {
  const re = RE2JS.compile(pattern);
  return {
    test: (text) => re.matcher(text).find(),
    submatch: (text) => {
      const m = re.matcher(text);
      if (!m.find()) return undefined;
      const out: string[] = [];
      for (let i = 0; i <= m.groupCount(); i++) out.push(m.group(i) ?? "");
      return out;
    },
  };
}

/** `regexp.QuoteMeta`: the text as an expression matching itself. */
export function quoteMeta(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&");
}
