import { annotateVerb, labelVerb } from "./annotate.js";
import { approveVerb } from "./approve.js";
import { cloneVerb } from "./clone.js";
import { copyVerb } from "./copy.js";
import { delVerb } from "./del.js";
import { getVerb } from "./get.js";
import { initVerb } from "./init.js";
import { proposeVerb } from "./propose.js";
import { proposeDeleteVerb } from "./propose-delete.js";
import { pullVerb } from "./pull.js";
import { pushVerb } from "./push.js";
import { rejectVerb } from "./reject.js";
import { rollbackVerb } from "./rollback.js";
import { upgradeVerb } from "./upgrade.js";
import type { Verb } from "./verb.js";

/** Every rpkg verb, in the order `porchlight rpkg --help` lists them. */
export const VERBS: readonly Verb[] = [
  getVerb,
  initVerb,
  copyVerb,
  pullVerb,
  pushVerb,
  delVerb,
  proposeVerb,
  approveVerb,
  rejectVerb,
  proposeDeleteVerb,
  cloneVerb,
  upgradeVerb,
  rollbackVerb,
  annotateVerb,
  labelVerb,
];
