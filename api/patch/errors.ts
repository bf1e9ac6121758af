/** A patch body the engine cannot apply. `path` locates the offending directive in the patch body
 * (`$patch/bindings[0].$append/principalLinks`, `targetQuery.spec.$drop/terms`; "" is the body itself). */
export class PatchError extends Error {
  readonly path: string;
  /** The rule that was broken, without the path (the message is `<path>: <reason>`). */
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(path ? `${path}: ${reason}` : reason);
    this.name = "PatchError";
    this.path = path;
    this.reason = reason;
  }
}
