/**
 * The typed HTTP client, re-exported with its public shape declared in `./types.ts` (plain TypeScript), so that the
 * SDK's .d.ts never reach zod. The value is the provider's `CplnClient` class itself (`instanceof` works).
 */
import { CplnClient as ClientClass } from "../provider/client/index.js";
import type { CplnClientApi, CplnClientOptions } from "./types.js";

/** A client of the organization API: one typed method per endpoint. See `CplnClientOptions` for its settings. */
export type CplnClient = CplnClientApi;
export const CplnClient: new (options?: CplnClientOptions) => CplnClientApi = ClientClass;
