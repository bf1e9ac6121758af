// The error a data-source function throws for invalid arguments. Its own module, free of zod, because the SDK
// re-exports it and the SDK's .d.ts must not reach zod.

/** Invalid arguments of a data-source function: one `path: message` per problem, before any request is sent. */
export class FunctionArgsError extends Error {
  constructor(
    readonly functionName: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(
      `${functionName}: invalid arguments: ` +
        issues.map((issue) => `${issue.path === "" ? "(args)" : issue.path}: ${issue.message}`).join("; "),
    );
    this.name = "FunctionArgsError";
  }
}
