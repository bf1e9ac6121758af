/**
 * `npm run demo`: starts cpln-local on a free port with a fresh SQLite file, runs examples/quickstart against it
 * (up → an edit → up → destroy) and prints what happened: each resource with its id, the PATCH the provider sent for
 * the edit, and the stack outputs, through the Pulumi CLI (Automation API). The CLI is the one `npm run engine` built,
 * or one installed; where there is none and Go is, the demo builds it first (about 6 minutes on 2 idle cores, said
 * before it starts); else it says in one line how to install Pulumi and exits 1. Leaves nothing running.
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { DemoServerCommand, DemoServerMessage } from "./demo-server.js";
import {
  buildPulumiCli,
  findPulumiCli,
  hasGo,
  runWithPulumi,
  searched,
  type DemoRun,
  type DemoStep,
  type PulumiCli,
} from "./demo-pulumi.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const programDir = path.join(repoRoot, "examples", "quickstart");
const seedFile = path.join(repoRoot, "examples", "seed.json");
const org = "demo";
/** The edit: one more principal on the policy's "view" binding. */
const extraViewer = "//serviceaccount/ci-bot";

type RecordedRequest = Extract<DemoServerMessage, { type: "requests" }>["requests"][number];

const RUN_MARKER = "CPLN_DEMO_RUN";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const isMutating = (request: RecordedRequest): boolean =>
  MUTATING.has(request.method) && !/\/-(query|accessreport)$/.test(request.path) && !request.path.endsWith("/-join");

/** cpln-local in a child process (its own process group), with the request log reachable over IPC. */
class LocalServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(dataFile: string, adminKey: string): Promise<LocalServer> {
    const child = fork(path.join(__dirname, "demo-server.js"), [], {
      env: { ...process.env, CPLN_TOKEN: adminKey, DEMO_DATA: dataFile, DEMO_ORG: org, DEMO_SEED: seedFile },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      detached: true,
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("cpln-local did not start within 30 s")), 30_000);
      child.once("exit", (code) => reject(new Error(`cpln-local exited with code ${code} before it was ready`)));
      child.on("message", (message: DemoServerMessage) => {
        if (message.type === "ready") {
          clearTimeout(timer);
          resolve(message.url);
        } else if (message.type === "failed") {
          clearTimeout(timer);
          reject(new Error(`cpln-local failed to start: ${message.message}`));
        }
      });
    });
    return new LocalServer(child, url);
  }

  get pid(): number {
    return this.child.pid!;
  }

  async requests(): Promise<RecordedRequest[]> {
    return new Promise((resolve) => {
      const onMessage = (message: DemoServerMessage): void => {
        if (message.type !== "requests") return;
        this.child.off("message", onMessage);
        resolve(message.requests);
      };
      this.child.on("message", onMessage);
      this.child.send({ type: "requests" } satisfies DemoServerCommand);
    });
  }

  /** Asks the server to close, waits for the process to exit (SIGKILL after 10 s). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.send({ type: "stop" } satisfies DemoServerCommand);
    const timer = setTimeout(() => killGroup(this.pid, "SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Pids of live processes started (directly or not) by this demo: every process the demo starts inherits the marker
 * `CPLN_DEMO_RUN=<run id>` in its environment, which survives re-parenting. Linux /proc only; elsewhere none found.
 */
function leftoverProcesses(runId: string): number[] {
  if (!fs.existsSync("/proc/self/environ")) return [];
  const marker = `${RUN_MARKER}=${runId}`;
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const state = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (state.slice(state.lastIndexOf(")") + 2).startsWith("Z")) continue;
      if (fs.readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(marker)) found.push(Number(entry));
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  return found;
}

// ---- printing -------------------------------------------------------------------------------------------------------

const symbols: Record<DemoStep["op"], string> = {
  create: "+",
  update: "~",
  replace: "±",
  delete: "-",
  same: "=",
  read: ">",
};

const pastTense: Record<DemoStep["op"], string> = {
  create: "created",
  update: "updated",
  replace: "replaced",
  delete: "deleted",
  same: "unchanged",
  read: "read",
};

function printSteps(steps: readonly DemoStep[], only?: readonly DemoStep["op"][]): void {
  const shown = steps.filter((step) => !only || only.includes(step.op));
  const width = Math.max(0, ...shown.map((step) => `${step.type} ${step.name}`.length));
  for (const step of shown) {
    const label = `${step.type} ${step.name}`.padEnd(width);
    // Destroying a Location restores the builtin it adopted (settings before the first up); nothing is deleted.
    const verb = step.op === "delete" && step.type === "Location" ? "restored" : pastTense[step.op];
    console.log(`  ${symbols[step.op]} ${label}  ${verb.padEnd(9)}  ${step.id ?? ""}`.trimEnd());
  }
}

function printRequests(requests: readonly RecordedRequest[]): void {
  for (const request of requests) {
    console.log(`    ${request.method} ${request.path} → ${request.status}`);
    if (request.body !== undefined) console.log(`      ${JSON.stringify(request.body)}`);
  }
}

function printOutputs(outputs: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(outputs)) {
    if (value !== null && typeof value === "object") {
      console.log(`  ${name}:`);
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        console.log(`    ${key}: ${typeof item === "string" ? item : JSON.stringify(item)}`);
      }
    } else {
      console.log(`  ${name}: ${String(value)}`);
    }
  }
}

function summary(steps: readonly DemoStep[]): string {
  const counts = new Map<string, number>();
  for (const step of steps) counts.set(pastTense[step.op], (counts.get(pastTense[step.op]) ?? 0) + 1);
  return [...counts].map(([verb, count]) => `${count} ${verb}`).join(", ") || "no resources";
}

// ---- main -----------------------------------------------------------------------------------------------------------

/** The CLI found, or built where Go is installed; undefined (after one line saying how to install it) otherwise. */
async function pulumiCli(): Promise<PulumiCli | undefined> {
  const found = findPulumiCli();
  if (found) return found;
  if (!hasGo()) {
    console.error(
      `Pulumi CLI not found (${searched}): install it (curl -fsSL https://get.pulumi.com | sh; https://www.pulumi.com/docs/install/) or Go 1.26+ for \`npm run engine\`, then run \`npm run demo\` again.`,
    );
    return undefined;
  }
  console.log(
    `Pulumi CLI not found (${searched}): building it from the Go module proxy with \`npm run engine\` (scripts/engine.sh) — about 6 minutes on 2 idle cores the first time, longer on busy ones; then cached and reused (seconds).`,
  );
  try {
    return await buildPulumiCli();
  } catch (error) {
    console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

async function main(): Promise<number> {
  const cli = await pulumiCli();
  if (!cli) return 1;
  const runId = randomBytes(8).toString("hex");
  process.env[RUN_MARKER] = runId;
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-demo-"));
  const adminKey = `demo-admin.${randomBytes(24).toString("hex")}`;
  const server = await LocalServer.start(path.join(workDir, "cpln.db"), adminKey);
  // The leftover check below must see what this demo starts; the running server proves it does (Linux).
  if (fs.existsSync("/proc/self/environ") && !leftoverProcesses(runId).includes(server.pid)) {
    await server.stop();
    throw new Error("cannot tell which processes this demo started (/proc/<pid>/environ unreadable)");
  }
  let run: DemoRun | undefined;
  try {
    console.log(`cpln-local is serving org "${org}" at ${server.url} (data: ${path.join(workDir, "cpln.db")})`);
    console.log(
      `Running examples/quickstart with the Pulumi CLI ${cli.version} (${cli.binDir}; Automation API, inline program, local file backend).`,
    );
    run = await runWithPulumi(cli, { programDir, workDir, org, endpoint: server.url, token: adminKey });

    let seen = 0;
    const newRequests = async (): Promise<RecordedRequest[]> => {
      const all = await server.requests();
      const fresh = all.slice(seen);
      seen = all.length;
      return fresh;
    };

    console.log("\n1. up");
    const first = await run.up({});
    printSteps(first.steps);
    await newRequests();

    console.log("\n2. up again, program unchanged");
    const second = await run.up({});
    const secondMutations = (await newRequests()).filter(isMutating);
    console.log(`  ${summary(second.steps)}; ${secondMutations.length} requests that change anything`);
    if (secondMutations.length > 0 || second.steps.some((step) => step.op !== "same")) {
      throw new Error("the second up of an unchanged program was not a no-op");
    }

    console.log(`\n3. edit (config quickstart:extraViewer = ${extraViewer}: one more viewer), then up`);
    const third = await run.up({ "quickstart:extraViewer": extraViewer });
    printSteps(third.steps, ["create", "update", "replace", "delete"]);
    console.log(`  ${summary(third.steps)}`);
    console.log("  what the provider sent:");
    printRequests((await newRequests()).filter(isMutating));

    console.log("\n  stack outputs:");
    printOutputs(third.outputs);

    console.log("\n4. destroy");
    const destroyed = await run.destroy();
    printSteps(destroyed.steps);
    console.log("  (a builtin location is never deleted: destroy restores the settings it had before the first up)");
    await newRequests();
  } finally {
    await run?.close();
    await server.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  let leftovers = leftoverProcesses(runId);
  for (let waited = 0; leftovers.length > 0 && waited < 5_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    leftovers = leftoverProcesses(runId);
  }
  if (leftovers.length > 0) throw new Error(`processes left running: ${leftovers.join(", ")}`);
  console.log(`\nStopped cpln-local (pid ${server.pid}) and removed ${workDir}; no process left running.`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
