/** The outcome of parsing a name: the value, or why the text is not such a name. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export const parsed = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const rejected = <T>(reason: string): Parsed<T> => ({ ok: false, reason });
