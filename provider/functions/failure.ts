// The one line a program shows when a data-source function fails. Functions run in the program process, where the
// Node SDK prints an unhandled error with its whole stack (170 lines for one bad token, issue 38); the SDK throws
// this line as a `pulumi.RunError`, which it prints alone. A refused token or an unknown org names the setting that
// chose it, so the fix is one `pulumi config set` away.
import { CplnApiError } from "../client/errors.js";
import { resolveOrg, type StackConfig } from "../config.js";

/** Which setting gave the org and the token a call used (the same precedence as `resolveConfig`). */
export interface SettingSources {
  org: string | undefined;
  token: string | undefined;
}

function present(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}

export function settingSources(
  inputOrg: string | undefined,
  stackConfig: StackConfig | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): SettingSources {
  const org = !present(resolveOrg({ inputOrg, stackConfig, env }))
    ? undefined
    : present(inputOrg)
      ? "the function's org argument"
      : present(stackConfig?.get("cpln:org"))
        ? "cpln:org"
        : "CPLN_ORG";
  const token = present(stackConfig?.get("cpln:token"))
    ? "cpln:token"
    : present(env.CPLN_TOKEN)
      ? "CPLN_TOKEN"
      : undefined;
  return { org, token };
}

/** `<function>: <what failed>[: <which setting to check>]`, on one line. */
export function describeFailure(functionName: string, error: unknown, sources: SettingSources): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ");
  const said = message.startsWith(`${functionName}:`) ? message : `${functionName}: ${message}`;
  if (!(error instanceof CplnApiError)) return said;
  const token = sources.token ?? "the token";
  const org = sources.org ?? "the org";
  if (error.status === 401) {
    return `${said} — the token from ${token} was refused; set a valid one: pulumi config set --secret cpln:token <key>`;
  }
  if (error.status === 403) {
    return `${said} — the token from ${token} may not do this in the org from ${org}`;
  }
  if (error.status === 404 && /^org \S+ not found/.test(error.apiMessage)) {
    return `${said} — check the org from ${org}: pulumi config set cpln:org <org>`;
  }
  return said;
}
