/**
 * The error of a missing or bad provider config, in a module of its own that loads nothing else: the native plugin's
 * server answers its handshake and its config calls with it before it loads the provider's core (server.ts).
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}
