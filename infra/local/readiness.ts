// Waiting for a started process to serve: polls an HTTP(S) health endpoint until it answers
// 200, and fails early, naming the log file, when the process exits or time runs out.
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { isRunning } from './processes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Probe {
  what: string;
  url: string;
  pid: number;
  match: string;
  log: string;
  /** Client certificate and the CA to verify the server; without ca the server is not verified. */
  tls?: { ca?: string; cert?: string; key?: string };
  /** Request headers (Knative's webhooks answer a probe only with k-kubelet-probe). */
  headers?: Record<string, string>;
}

export function get(
  url: string,
  tls: Probe['tls'] = {},
  timeoutMs = 2000,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const secure = url.startsWith('https:');
    const options = secure
      ? {
          ca: tls.ca ? readFileSync(tls.ca) : undefined,
          cert: tls.cert ? readFileSync(tls.cert) : undefined,
          key: tls.key ? readFileSync(tls.key) : undefined,
          rejectUnauthorized: tls.ca !== undefined,
          timeout: timeoutMs,
          headers,
        }
      : { timeout: timeoutMs, headers };
    const req = (secure ? httpsRequest : httpRequest)(url, options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs}ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** The last lines of a log file, indented, for error messages. */
export function tail(log: string, lines = 15): string {
  try {
    return readFileSync(log, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .map((l) => `    ${l}`)
      .join('\n');
  } catch {
    return '    (no log)';
  }
}

export async function waitReady(probe: Probe, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    if (!isRunning(probe.pid, probe.match)) {
      throw new Error(`${probe.what} exited while starting; see ${probe.log}, which ends with:\n${tail(probe.log)}`);
    }
    try {
      const res = await get(probe.url, probe.tls, 2000, probe.headers);
      if (res.status === 200) return;
      last = `HTTP ${res.status}: ${res.body.slice(0, 500)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${probe.what} not ready at ${probe.url} after ${timeoutMs / 1000}s (last: ${last}); see ${probe.log}, which ends with:\n${tail(probe.log)}`,
      );
    }
    await sleep(200);
  }
}
