import { createPublicKey, randomBytes, verify } from "node:crypto";
import { ApiError } from "./http.js";
import type { Store } from "./state.js";
import type { AppRec, InstallationRec, TokenRec, UserRec } from "./types.js";

/** Who made a request, once its credentials are checked. */
export type Principal =
  | { kind: "app"; app: AppRec }
  | { kind: "installation"; installation: InstallationRec; app: AppRec; token: TokenRec; actor: UserRec }
  | { kind: "user"; user: UserRec; token: TokenRec }
  | { kind: "anonymous" };

/** Installation tokens live an hour, as on GitHub. */
export const TOKEN_TTL_MS = 60 * 60 * 1000;
/** GitHub refuses app JWTs valid for longer than ten minutes. */
const MAX_JWT_TTL_S = 600;

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A token in GitHub's format: prefix plus 36 alphanumerics (`ghs_…` installation, `ghp_…` PAT). */
export function newToken(prefix: "ghs" | "ghp"): string {
  const bytes = randomBytes(36);
  let s = "";
  for (const b of bytes) s += ALNUM[b % ALNUM.length];
  return `${prefix}_${s}`;
}

const unauthorized = (message = "Bad credentials") => new ApiError(401, message);

function b64urlJson(part: string): Record<string, unknown> {
  const v = JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as unknown;
  if (!v || typeof v !== "object") throw new Error("not an object");
  return v as Record<string, unknown>;
}

/** Verifies an app JWT (RS256, signed with the app's private key) the way GitHub does. */
function verifyAppJwt(store: Store, jwt: string): AppRec {
  const parts = jwt.split(".");
  if (parts.length !== 3) throw unauthorized("A JSON web token could not be decoded");
  const [h, p, sig] = parts as [string, string, string];
  let header: Record<string, unknown>;
  let payload: Record<string, unknown>;
  try {
    header = b64urlJson(h);
    payload = b64urlJson(p);
  } catch {
    throw unauthorized("A JSON web token could not be decoded");
  }
  if (header.alg !== "RS256") throw unauthorized("A JSON web token could not be decoded");
  const app = store.app(Number(payload.iss));
  if (!app) throw unauthorized("A JSON web token could not be decoded");
  const valid = verify(
    "RSA-SHA256",
    Buffer.from(`${h}.${p}`),
    createPublicKey(app.publicKeyPem),
    Buffer.from(sig, "base64url"),
  );
  if (!valid) throw unauthorized("A JSON web token could not be decoded");
  const now = Math.floor(store.now().getTime() / 1000);
  const { iat, exp } = payload;
  if (typeof iat !== "number" || !Number.isInteger(iat) || iat > now + 60) {
    throw unauthorized("'Issued at' claim ('iat') must be an Integer representing a time in the past");
  }
  if (typeof exp !== "number" || exp <= now) {
    throw unauthorized(
      "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
    );
  }
  if (exp - iat > MAX_JWT_TTL_S || exp > now + MAX_JWT_TTL_S + 60) {
    throw unauthorized("'Expiration time' claim ('exp') is too far in the future");
  }
  return app;
}

/** Resolves an `Authorization` header (token, bearer JWT or token, basic) to a principal. */
export function authenticate(store: Store, header: string | undefined): Principal {
  if (!header) return { kind: "anonymous" };
  const [scheme = "", ...rest] = header.trim().split(/\s+/);
  const cred = rest.join(" ");
  const s = scheme.toLowerCase();
  if (s === "basic") {
    const decoded = Buffer.from(cred, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const password = colon >= 0 ? decoded.slice(colon + 1) : decoded;
    return tokenPrincipal(store, password);
  }
  if (s !== "token" && s !== "bearer") throw unauthorized();
  if (cred.split(".").length === 3) return { kind: "app", app: verifyAppJwt(store, cred) };
  return tokenPrincipal(store, cred);
}

function tokenPrincipal(store: Store, token: string): Principal {
  const rec = store.data.tokens.find((t) => t.token === token);
  if (!rec) throw unauthorized();
  if (rec.expiresAt && Date.parse(rec.expiresAt) <= store.now().getTime()) throw unauthorized();
  if (rec.kind === "pat") {
    const user = store.user(rec.login ?? "");
    if (!user) throw unauthorized();
    return { kind: "user", user, token: rec };
  }
  const installation = store.installation(rec.installationId ?? -1);
  const app = installation && store.app(installation.appId);
  if (!installation || !app) throw unauthorized();
  return {
    kind: "installation",
    installation,
    app,
    token: rec,
    actor: store.ensureUser(app.botLogin, "Bot"),
  };
}

/** The user a principal acts as (apps act as their bot user). */
export function actorOf(p: Principal): UserRec | undefined {
  if (p.kind === "installation") return p.actor;
  if (p.kind === "user") return p.user;
  return undefined;
}

/** The `installation id` a request is logged and rate-limited under, if any. */
export function installationIdOf(p: Principal): number | null {
  return p.kind === "installation" ? p.installation.id : null;
}
