import type { Guardrail } from "../../config/schema.js";
import type { MergeChange, MergeConflict, UpdateStrategy, UpstreamLock } from "../../merge/types.js";
import { MergeError } from "../../merge/types.js";
import type {
  InjectableResource,
  MutationOptions,
  MutationResult,
  PackageVariant,
} from "../../variants/index.js";
import { VariantMutationError } from "../../variants/index.js";
import type { RenderOptions, RenderResult } from "../renderer.js";
import type { WireChanges, WireTree } from "./wire.js";

/** The work a worker thread does: the Renderer's and the PackageEngine's calls, trees packed. */
export type WorkRequest =
  | { op: "render"; tree: WireTree; options: RenderOptions }
  | { op: "committed"; tree: WireTree; options: RenderOptions }
  | { op: "settled"; tree: WireTree; options: RenderOptions }
  | {
      op: "validate";
      tree: WireTree;
      guardrails: readonly Guardrail[];
      configs: ReadonlyMap<string, string>;
      options: RenderOptions;
    }
  | {
      op: "merge";
      original: WireTree;
      updated: WireTree;
      local: WireTree;
      strategy?: UpdateStrategy;
      lock?: UpstreamLock;
    }
  | {
      op: "mutate";
      files: ReadonlyMap<string, string>;
      variant: PackageVariant;
      injectable: readonly InjectableResource[];
      options: MutationOptions;
    };

/** What each request answers, trees packed. */
export interface WorkReplies {
  /**
   * `tree` null: the render changed no file (the request's tree is the result's, in its order); else
   * the result's paths and the files the render wrote (every other file is the request's).
   */
  render: Omit<RenderResult, "tree"> & { tree: WireChanges | null };
  committed: null;
  /** null: not told by the declarations (the render's tree is the request's). */
  settled: Omit<RenderResult, "tree"> | null;
  validate: Omit<RenderResult, "tree">;
  merge: { tree: WireTree; conflicts: MergeConflict[]; changes: MergeChange[] };
  mutate: MutationResult;
}

/** The settings a worker thread builds its renderer from (what operatorServicesFromEnv reads). */
export interface WorkerSetup {
  env: Record<string, string | undefined>;
  /** Endpoints the egress policy allows besides PORCHLIGHT_EGRESS_ALLOW. */
  allow: readonly string[];
  /** Where the renderers journal what they keep (a restarted app renders as before); none: memory only. */
  journalDir?: string;
}

/** An error as it crosses back: the errors callers tell apart keep their class. */
export interface WireError {
  name: string;
  message: string;
  kptText?: string;
  file?: string;
}

export type WorkReply = { id: number } & ({ ok: true; value: unknown } | { ok: false; error: WireError });

export function toWireError(e: unknown): WireError {
  if (e instanceof VariantMutationError) {
    const prefix = `${e.file}: `;
    const message = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
    return { name: e.name, message, file: e.file };
  }
  if (e instanceof MergeError)
    return { name: e.name, message: e.message, ...(e.kptText !== undefined ? { kptText: e.kptText } : {}) };
  if (e instanceof Error) return { name: e.name, message: e.message };
  return { name: "Error", message: String(e) };
}

export function fromWireError(w: WireError): Error {
  if (w.name === "MergeError") return new MergeError(w.message, w.kptText);
  if (w.name === "VariantMutationError" && w.file !== undefined)
    return new VariantMutationError(w.file, w.message);
  const e = new Error(w.message);
  e.name = w.name;
  return e;
}
