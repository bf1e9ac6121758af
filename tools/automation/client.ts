/**
 * Starts a driver (driver.ts, compiled) in a child process and sends it commands one at a time.
 */
import { fork, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import type { DriverCommand, DriverInit, DriverReply } from "./driver.js";

export type { DriverInit, DriverReply, EngineDiagnostic, EngineStep } from "./driver.js";

export class EngineDriver {
  /** Commands run one after the other (the driver runs one at a time), even when a caller stops waiting for one. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly child: ChildProcess) {}

  /** Forks the driver and initializes its stack (creates it, sets the config). */
  static async start(init: DriverInit): Promise<EngineDriver> {
    const child = fork(path.join(__dirname, "driver.js"), [], {
      cwd: init.workDir,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      // Plain Node: not the parent's flags (a test runner's loaders).
      execArgv: [],
      env: { ...process.env, ...init.env },
    });
    const driver = new EngineDriver(child);
    const reply = await driver.send({ cmd: "init", init });
    if (!reply.ok) {
      await driver.close();
      throw new Error(`engine driver: init: ${reply.error}`);
    }
    return driver;
  }

  /** Sends one command and waits for its reply (a failed run is `{ ok: false }`, not a rejection). */
  send(command: DriverCommand): Promise<DriverReply> {
    const reply = this.queue.then(() => this.exchange(command));
    this.queue = reply.catch(() => undefined);
    return reply;
  }

  private exchange(command: DriverCommand): Promise<DriverReply> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void =>
        reject(new Error(`engine driver exited (${code}) during ${command.cmd}`));
      this.child.once("exit", onExit);
      this.child.once("message", (reply: DriverReply) => {
        this.child.off("exit", onExit);
        resolve(reply);
      });
      this.child.send(command);
    });
  }

  /** Sends a command whose run must succeed. */
  async run(command: DriverCommand): Promise<Extract<DriverReply, { ok: true }>> {
    const reply = await this.send(command);
    if (!reply.ok) throw new Error(`engine driver: ${command.cmd}: ${reply.error}`);
    return reply;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.disconnect();
    await exited;
  }
}
