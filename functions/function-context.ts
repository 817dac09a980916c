// The contract between functions/start.ts and each function (functions/NAME/index.ts
// exports `start`): one process, one HTTP server, one metrics registry, one logger.
import type { Express } from 'express';
import type { Logger } from '../shared/io/log.ts';
import type { RequestListener } from 'node:http';
import type { Probe } from '../shared/io/http.ts';
import type { Registry } from '../shared/io/metrics.ts';
import type { Config } from './start-config.ts';

export interface FunctionContext {
  readonly config: Config;
  readonly log: Logger;
  /**
   * The shared server's express app, to mount routes on; loaded on the first call, so that a
   * process whose functions never ask (ingest) does not load express.
   */
  expressApp(): Promise<Express>;
  /** Serves one route with a plain node:http handler, before express (ingest's POST /). */
  serveDirect(route: `${string} /${string}`, handler: RequestListener): void;
  readonly registry: Registry;
  /** The environment as main() read it, for a function with settings of its own (webhooks). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Adds a readiness check to /readyz. */
  addProbe(probe: Probe): void;
}

export interface RunningFunction {
  /** Stops taking work, finishes what is in flight, closes connections. */
  close(): Promise<void>;
}

export type StartFunction = (context: FunctionContext) => Promise<RunningFunction>;
