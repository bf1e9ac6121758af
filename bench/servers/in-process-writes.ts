/**
 * The service benchmark's writes without HTTP: cpln-local's record service, store and authenticator built as
 * `startServer()` builds them, in a process of their own, and each write done as the route does it — the bearer key
 * authenticated, the body parsed from its JSON text, the write, its answer's JSON text, the wait until its commit group
 * is durable — by 10 callers at once, in rounds. What a write costs in the domain and the store alone: on the one
 * thread that runs them, no HTTP front could answer faster than one write per that much CPU.
 * `node dist/bench/servers/in-process-writes.js <data file> <post|patch> <writes per round> <rounds>`; prints one JSON
 * line, `{ "cpuUsPerRound": [...], "callers": 10 }` (CPU of this process per write, µs; a warm-up round first, not counted).
 */
import type { Call } from "../../server/domain/records.js";
import { serializeReply } from "../../server/json.js";
import {
  LOAD_STORED_BYTES,
  isStoredBytesQuota,
  isVolumeSetQuotaOf,
  volumeSetBody,
  type QuotaItem,
} from "../lib/setup.js";
import { seededService } from "../lib/in-process.js";
import { runChild } from "./child.js";

const ORG = "bench";
const ADMIN_KEY = "bench-in-process-key-0123456789abcdef";
const CALLERS = 10;

async function main(): Promise<void> {
  const [data, shape, perRoundText, roundsText] = process.argv.slice(2);
  const perRound = Number(perRoundText);
  const rounds = Number(roundsText);
  if (data === undefined || (shape !== "post" && shape !== "patch") || !(perRound > 0) || !(rounds > 0)) {
    throw new Error("usage: in-process-writes.js <data file> <post|patch> <writes per round> <rounds>");
  }
  const { store, records, authenticator } = await seededService(data, ORG, ADMIN_KEY);
  const header = `Bearer ${ADMIN_KEY}`;
  const admin: Call = { org: ORG, principal: await authenticator.authenticate(header, ORG) };
  await records.create(admin, "gvc", { name: "writes" });
  // Lifted as `createGvc` lifts it for the HTTP rounds; the quota check still runs on every create.
  const quotas = (await records.list(admin, "quota")) as unknown as { items: QuotaItem[] };
  const quota = quotas.items.find((item) => isVolumeSetQuotaOf(item, ORG, "writes"));
  if (typeof quota?.id !== "string") throw new Error("no volumesets-per-gvc quota for gvc writes");
  await records.patch(admin, "quota", quota.id, { max: 10_000_000 });
  const bytes = quotas.items.find(isStoredBytesQuota);
  if (typeof bytes?.id !== "string") throw new Error("no stored-bytes quota");
  await records.patch(admin, "quota", bytes.id, { max: LOAD_STORED_BYTES });
  await records.create({ ...admin, gvc: "writes" }, "volumeset", volumeSetBody("patched"));

  let sequence = 0;
  const write = async (): Promise<void> => {
    const n = sequence++;
    const call: Call = { org: ORG, gvc: "writes", principal: await authenticator.authenticate(header, ORG) };
    // Parsed from JSON text, as the route's body is.
    const body: unknown = JSON.parse(
      JSON.stringify(shape === "post" ? volumeSetBody(`w-${n}`) : { description: `patched ${n}` }),
    );
    const answer =
      shape === "post"
        ? (await records.create(call, "volumeset", body)).record
        : await records.patch(call, "volumeset", "patched", body);
    serializeReply(answer);
    await store.settled?.();
  };
  const round = async (): Promise<number> => {
    const before = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        for (let i = 0; i < perRound / CALLERS; i++) await write();
      }),
    );
    const used = process.cpuUsage(before);
    return (used.user + used.system) / perRound;
  };
  await round();
  const cpuUsPerRound: number[] = [];
  for (let i = 0; i < rounds; i++) cpuUsPerRound.push(Math.round((await round()) * 10) / 10);
  await store.close();
  process.stdout.write(`${JSON.stringify({ cpuUsPerRound, callers: CALLERS })}\n`);
}

runChild(main);
