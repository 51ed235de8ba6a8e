import type { Document } from "yaml";
import { ParseCache } from "../../kpt/yaml/parse-cache.js";

/**
 * A ParseCache that also takes, once, the documents the renderer's finding placer read of a render's
 * output (locate.ts): the bot commits that output and renders it next (`KptRenderer.committed`), which
 * reads the same files again. Both read a file with parseYamlFile of its text, whose documents depend on
 * the text alone, and the placer only reads them: so the render gets, for a text offered, the documents
 * its own read would make — handed over (never kept: a document is handed out once, to change as the
 * render likes). Only files the fast reader read are offered (ParseCache keeps the others itself).
 * Only the files the render changed are offered (the bot commits them; the others' renders are kept
 * by file). Offers live one render: those made by a render's placer are taken by the next render or
 * dropped at its end, so they are held no longer than the gap between two renders.
 */
export class HandoverParseCache extends ParseCache {
  /** Offered by the last render's placer, taken by this render. */
  private previous = new Map<string, Document[]>();
  /** Offered by this render's placer, for the next. */
  private current = new Map<string, Document[]>();
  /** Files whose documents were handed over instead of read. */
  handedOver = 0;

  /** A render starts: what the last one's placer offered is now on offer; what it offers goes to the next. */
  beginRender(): void {
    this.previous = this.current;
    this.current = new Map();
  }

  /** A render ended: what it did not take is dropped. */
  endRender(): void {
    this.previous = new Map();
  }

  /** The documents the placer read of `text` (parseYamlFile's, by the fast reader, unchanged since). */
  offer(text: string, docs: Document[]): void {
    this.current.set(text, docs);
  }

  override docs(bytes: Buffer, text: string, path: string): Document[] {
    const offered = this.previous.get(text);
    if (offered) {
      this.previous.delete(text);
      this.handedOver++;
      this.read++;
      return offered;
    }
    return super.docs(bytes, text, path);
  }
}
