/** A patch body the engine cannot apply. `path` locates the offending directive in the patch body
 * (`$patch/bindings[0].$append/principalLinks`, `targetQuery.spec.$drop/terms`; "" is the body itself). */
export class PatchError extends Error {
  readonly path: string;
  /** The rule that was broken, without the path (the message is `<path>: <reason>`). */
  readonly reason: string;
  /** The directive is well-formed but collides with the array it changes (a key the array already holds). */
  readonly conflict: boolean;

  constructor(path: string, reason: string, options: { conflict?: boolean } = {}) {
    super(path ? `${path}: ${reason}` : reason);
    this.name = "PatchError";
    this.path = path;
    this.reason = reason;
    this.conflict = options.conflict ?? false;
  }
}
