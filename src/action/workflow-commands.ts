/**
 * GitHub Actions workflow commands (`::error file=...,line=...::message`), the lines a step prints to
 * stdout for the runner to turn into annotations. Messages and property values are escaped so a
 * newline or a `::` inside them cannot end the command early or start another one.
 */
export type AnnotationLevel = "error" | "warning" | "notice";

export interface AnnotationProps {
  title?: string;
  file?: string;
  line?: number;
}

/** `%`, CR and LF as the runner reads them back. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Property values additionally escape `:` and `,`, which separate properties. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** One annotation line, ending in a newline. */
export function annotation(level: AnnotationLevel, message: string, props: AnnotationProps = {}): string {
  const fields = Object.entries(props)
    .filter(([, v]) => v !== undefined && v !== "")
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`);
  const head = fields.length > 0 ? `${level} ${fields.join(",")}` : level;
  return `::${head}::${escapeData(message)}\n`;
}
