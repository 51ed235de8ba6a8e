/**
 * A pure function of a string with its answers kept, the `max` most recently made: a Map in insertion
 * order whose oldest entry goes first (not lru-cache, whose import is a tenth of a command line's
 * start). What it answers never depends on what ran before: the same text, the same answer.
 */
export function memoized<T>(max: number, read: (text: string) => T): (text: string) => T {
  const kept = new Map<string, T>();
  return (text) => {
    if (kept.has(text)) return kept.get(text) as T;
    const value = read(text);
    if (kept.size >= max) kept.delete(kept.keys().next().value as string);
    kept.set(text, value);
    return value;
  };
}
