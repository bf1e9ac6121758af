import { createHash, createHmac, hash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createLocalJWKSet, jwtVerify, type JWTVerifyGetKey } from "jose";
import { selfLink } from "../../api/links.js";
import { unauthorized } from "../errors.js";
import type { Store } from "../store/store.js";

/** Who is calling. `link` is what policy bindings and group members name. */
export interface Principal {
  type: "serviceaccount" | "user" | "anonymous";
  link: string;
}

export const anonymous: Principal = Object.freeze({ type: "anonymous", link: "anonymous" }) as Principal;

export interface JwtOptions {
  /** HS256 shared secret. */
  secret?: string;
  /** Path of a JWKS JSON file (`{"keys":[...]}`) holding the public keys. */
  jwksFile?: string;
  issuer?: string;
  audience?: string;
}

/** SHA-256 as hex: Node's one-shot `crypto.hash` (no Hash object per call) where it exists (20.12+). */
export function sha256Hex(text: string): string {
  return typeof hash === "function" ? hash("sha256", text, "hex") : createHash("sha256").update(text).digest("hex");
}

/**
 * The secret that names keys without a dot, drawn once per process. A key's name is listed to every principal that
 * may view the service account (`viewers` included), so a name derived from the key alone (its SHA-256, as before
 * issue 39) let a viewer test guesses offline; an HMAC under a secret that never leaves the process does not. A new
 * process names the admin key anew and `installAdminKey` replaces the old name.
 */
const RAW_KEY_SECRET = randomBytes(32);

/**
 * The name a key is stored under: the text before the first `.` (`<keyName>.<secret>`, as the real API issues them).
 * A key without a dot (an arbitrary `CPLN_TOKEN`) is stored under `raw-` and 16 hex of its HMAC-SHA-256 under this
 * process's secret.
 */
export function keyNameOf(key: string): string {
  const dot = key.indexOf(".");
  if (dot > 0) return key.slice(0, dot);
  return `raw-${createHmac("sha256", RAW_KEY_SECRET).update(key).digest("hex").slice(0, 16)}`;
}

function looksLikeJwt(token: string): boolean {
  return token.startsWith("eyJ") && token.split(".").length === 3;
}

interface CachedJwt {
  email: string;
  until: number;
}

const JWT_CACHE_MS = 60_000;
const CACHE_MAX = 10_000;

interface CachedKey {
  org: string;
  link: string;
  /** The org's service-account change counter when the key was verified; any change since invalidates it. */
  counter: number;
}

/**
 * Resolves the `Authorization` header to a principal, or throws 401. Never echoes the credential in an error.
 * Service-account keys are compared by SHA-256 in constant time; JWTs are verified with jose and the successful
 * result is cached until the token expires (at most a minute); failures are never cached.
 */
export class Authenticator {
  private readonly store: Store;
  private readonly jwtKey: Uint8Array | JWTVerifyGetKey | undefined;
  private readonly jwt: JwtOptions;
  private readonly jwtCache = new Map<string, CachedJwt>();
  /** Verified keys by the SHA-256 of the key (never the key itself). Failed checks are never cached. */
  private readonly keyCache = new Map<string, CachedKey>();

  constructor(store: Store, jwt: JwtOptions = {}) {
    this.store = store;
    this.jwt = jwt;
    if (jwt.secret !== undefined && jwt.jwksFile !== undefined) {
      throw new Error("Configure either a JWT secret or a JWKS file, not both");
    }
    if (jwt.secret !== undefined) this.jwtKey = new TextEncoder().encode(jwt.secret);
    else if (jwt.jwksFile !== undefined) {
      const jwks = JSON.parse(readFileSync(jwt.jwksFile, "utf8")) as Parameters<typeof createLocalJWKSet>[0];
      this.jwtKey = createLocalJWKSet(jwks);
    }
  }

  /** `header` is the raw Authorization header; `org` the org of the request path (JWT users belong to it). */
  async authenticate(header: string | undefined, org: string): Promise<Principal> {
    if (header === undefined || header.trim() === "") throw unauthorized("Missing Authorization header");
    let token = header.trim();
    if (/^bearer\s+/i.test(token)) token = token.replace(/^bearer\s+/i, "");
    if (token === "") throw unauthorized();
    if (looksLikeJwt(token)) return this.verifyJwt(token, org);
    return this.verifyKey(token);
  }

  private async verifyKey(key: string): Promise<Principal> {
    const digest = sha256Hex(key);
    const cached = this.keyCache.get(digest);
    if (cached && cached.counter === (await this.store.changeCounter(cached.org, "serviceaccount"))) {
      return { type: "serviceaccount", link: cached.link };
    }
    const stored = await this.store.findCredential(keyNameOf(key));
    // Keys authenticate service accounts (the only owners of credentials the API has).
    if (!stored || stored.ownerKind !== "serviceaccount") throw unauthorized("Invalid credentials");
    // Read before comparing: a revocation racing with this check moves the counter past what gets cached.
    const counter = await this.store.changeCounter(stored.org, "serviceaccount");
    const presented = Buffer.from(digest, "hex");
    const expected = Buffer.from(stored.hash, "hex");
    if (expected.length !== presented.length || !timingSafeEqual(presented, expected)) {
      throw unauthorized("Invalid credentials");
    }
    const link = selfLink(stored.org, "serviceaccount", stored.owner);
    if (this.keyCache.size >= CACHE_MAX) this.keyCache.clear();
    this.keyCache.set(digest, { org: stored.org, link, counter });
    return { type: "serviceaccount", link };
  }

  private async verifyJwt(token: string, org: string): Promise<Principal> {
    const now = Date.now();
    const cached = this.jwtCache.get(token);
    if (cached && cached.until > now) return { type: "user", link: selfLink(org, "user", cached.email) };
    if (cached) this.jwtCache.delete(token);
    if (this.jwtKey === undefined) throw unauthorized("JWT authentication is not configured");
    let email: unknown;
    let exp: number | undefined;
    try {
      // A token without an expiry would be valid forever: refuse it.
      const options = { issuer: this.jwt.issuer, audience: this.jwt.audience, requiredClaims: ["exp"] };
      const { payload } =
        this.jwtKey instanceof Uint8Array
          ? await jwtVerify(token, this.jwtKey, { ...options, algorithms: ["HS256"] })
          : await jwtVerify(token, this.jwtKey, options);
      email = payload["email"];
      exp = payload.exp;
    } catch (error) {
      const reason = (error as { code?: string }).code ?? "ERR_JWT_INVALID";
      throw unauthorized(`Invalid token (${reason})`);
    }
    if (typeof email !== "string" || email === "") throw unauthorized("Token has no email claim");
    if (this.jwtCache.size >= CACHE_MAX) this.jwtCache.clear();
    const until = Math.min(exp !== undefined ? exp * 1000 : now + JWT_CACHE_MS, now + JWT_CACHE_MS);
    this.jwtCache.set(token, { email, until });
    return { type: "user", link: selfLink(org, "user", email) };
  }
}
