// Readiness, liveness and startup probes of one container: exec (run on the host with the
// container's environment and shims), tcpSocket and httpGet against the pod's IP. A prober
// counts consecutive results against the thresholds and reports when its verdict changes.
import { createConnection } from 'node:net';
import { request } from 'node:http';
import type { V1Container, V1Probe } from '@kubernetes/client-node';
import { planExec, type ProcessPlan } from './process-plan.ts';
import { runToCompletion } from './process-runner.ts';
import type { PathMapping } from './path-map.ts';

export interface ProbeTarget {
  readonly podIP: string;
  readonly container: V1Container;
  readonly plan: ProcessPlan;
  readonly mappings: readonly PathMapping[];
}

export class Prober {
  private timer: NodeJS.Timeout | undefined;
  private successes = 0;
  private failures = 0;
  private stopped = false;
  /** Readiness starts false; liveness and startup start true (not failed yet). */
  verdict: boolean;

  constructor(
    private readonly probe: V1Probe,
    private readonly target: ProbeTarget,
    private readonly kind: 'readiness' | 'liveness' | 'startup',
    private readonly onChange: (verdict: boolean) => void,
  ) {
    this.verdict = kind !== 'readiness';
  }

  start(): void {
    this.schedule((this.probe.initialDelaySeconds ?? 0) * 1000);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
  }

  private async tick(): Promise<void> {
    const ok = await runProbe(this.probe, this.target).catch(() => false);
    if (this.stopped) return;
    if (ok) { this.successes++; this.failures = 0; } else { this.failures++; this.successes = 0; }
    const successThreshold = this.kind === 'readiness' ? (this.probe.successThreshold ?? 1) : 1;
    const failureThreshold = this.probe.failureThreshold ?? 3;
    let next = this.verdict;
    if (ok && this.successes >= successThreshold) next = true;
    if (!ok && this.failures >= failureThreshold) next = false;
    if (next !== this.verdict) {
      this.verdict = next;
      this.onChange(next);
    }
    // A startup probe stops once it has succeeded; the others keep going.
    if (this.kind === 'startup' && this.verdict && ok) return;
    this.schedule((this.probe.periodSeconds ?? 10) * 1000);
  }
}

export async function runProbe(probe: V1Probe, target: ProbeTarget): Promise<boolean> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.exec?.command) {
    const result = await runToCompletion(planExec(probe.exec.command, target.plan, target.mappings), timeoutMs);
    return result.exitCode === 0;
  }
  if (probe.tcpSocket) {
    return tcpOpen(probe.tcpSocket.host || target.podIP, portNumber(probe.tcpSocket.port, target.container), timeoutMs);
  }
  if (probe.httpGet) {
    const g = probe.httpGet;
    return httpOk(g.host || target.podIP, portNumber(g.port, target.container), g.path ?? '/', timeoutMs);
  }
  return true;
}

/** A numeric port, or a named one looked up in the container's ports. */
export function portNumber(port: number | string, container: V1Container): number {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort ?? -1;
}

function tcpOpen(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: timeoutMs });
    const done = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

function httpOk(host: string, port: number, path: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host, port, path, method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 400);
    });
    req.once('timeout', () => { req.destroy(); resolve(false); });
    req.once('error', () => resolve(false));
    req.end();
  });
}
