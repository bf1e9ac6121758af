/**
 * A provider process started as the Pulumi engine starts one (the dynamic-provider host, or a native plugin): in its
 * own process group, with an engine address as its last argument (a caller's Engine.Log service, else a dummy that
 * refuses connections), its gRPC port read from the first stdout line.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export interface ProviderProcessOptions {
  /** Names the process in errors (`the plugin`, `dynamic-provider host`). */
  label: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
  /** The engine address passed last (where the provider logs diagnostics); default a port nothing listens on. */
  engineAddress?: string;
  /** Every stderr line, and every stdout line after the port. */
  onLine(line: string): void;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

export class ProviderProcess {
  private readonly exited: Promise<void>;
  private stopped = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Spawns the process and waits for its port; on failure the error carries what it printed. */
  static async start(options: ProviderProcessOptions): Promise<ProviderProcess> {
    // The engine address comes last; a provider dials it only to log diagnostics.
    const child = spawn(options.command, [...options.args, options.engineAddress ?? "127.0.0.1:1"], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const early: string[] = [];
    const remember = (line: string): void => {
      early.push(line);
      options.onLine(line);
    };
    createInterface({ input: child.stderr! }).on("line", remember);
    const stdout = createInterface({ input: child.stdout! });
    const { label } = options;
    const port = await new Promise<number>((resolve, reject) => {
      const timeoutMs = options.startTimeoutMs ?? 20_000;
      const timer = setTimeout(() => fail(new Error(`${label} printed no port within ${timeoutMs} ms`)), timeoutMs);
      let settled = false;
      function fail(error: Error): void {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (child.pid !== undefined && child.exitCode === null) killGroup(child.pid, "SIGKILL");
        reject(new Error(`${error.message}\n${early.join("\n")}`.trim()));
      }
      child.once("error", fail);
      child.once("exit", (code, signal) =>
        fail(new Error(`${label} exited (${signal ?? code}) before printing its port`)),
      );
      stdout.once("line", (line) => {
        const value = Number(line.trim());
        if (!Number.isInteger(value) || value <= 0)
          return fail(new Error(`unexpected first line from ${label}: ${line}`));
        settled = true;
        clearTimeout(timer);
        resolve(value);
      });
    });
    stdout.on("line", options.onLine);
    return new ProviderProcess(child, port);
  }

  /** Kills the process group (SIGTERM, SIGKILL after 3 s) and waits for the exit. Safe to call twice. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      const pid = this.child.pid;
      if (pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) {
        killGroup(pid, "SIGTERM");
        const timer = setTimeout(() => killGroup(pid, "SIGKILL"), 3_000);
        await this.exited;
        clearTimeout(timer);
      }
    }
    await this.exited;
  }
}
