// Readiness, liveness and startup probes of one container: exec (as its runtime runs a command
// beside it: on the host with its environment and shims, or in its container), tcpSocket and
// httpGet against the pod's IP. A prober counts consecutive results against the thresholds and
// reports when its verdict changes.
import { createConnection } from 'node:net';
import { request } from 'node:http';
import { availableParallelism } from 'node:os';
import type { V1Container, V1Probe } from '@kubernetes/client-node';
import type { Exec } from './process-runner.ts';

export interface ProbeTarget {
  readonly podIP: string;
  readonly container: V1Container;
  /** How an exec probe runs beside the container (its runtime's). */
  readonly exec: Exec;
}

export class Prober {
  private timer: NodeJS.Timeout | undefined;
  private successes = 0;
  private failures = 0;
  private stopped = false;
  /** The current verdict (ready / alive / started). */
  verdict: boolean;

  constructor(
    private readonly probe: V1Probe,
    private readonly target: ProbeTarget,
    private readonly kind: 'readiness' | 'liveness' | 'startup',
    private readonly onChange: (verdict: boolean) => void,
    /** Startup probes only: called once failureThreshold failures in a row were seen. */
    private readonly onGiveUp?: () => void,
  ) {
    // Liveness starts healthy; readiness and startup start unproven.
    this.verdict = kind === 'liveness';
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
    const failureThreshold = this.probe.failureThreshold ?? 3;
    const judged = judge(
      { successes: this.successes, failures: this.failures, verdict: this.verdict },
      ok,
      this.kind,
      this.probe,
    );
    this.successes = judged.successes;
    this.failures = judged.failures;
    const next = judged.verdict;
    if (next !== this.verdict) {
      this.verdict = next;
      this.onChange(next);
    }
    // A startup probe stops once it has succeeded or given up; the others keep going.
    if (this.kind === 'startup' && this.verdict && ok) return;
    if (this.kind === 'startup' && this.failures >= failureThreshold) return this.onGiveUp?.();
    this.schedule((this.probe.periodSeconds ?? 10) * 1000);
  }
}

/**
 * The container with each probe's period and timeout multiplied by `scale` (pure; scale 1:
 * itself). Probes made rarer because many pods share a few cores also take longer to answer
 * there: a timeout kept at its pod's value failed probes of healthy pods on a saturated machine.
 */
export function scaleProbes(container: V1Container, scale: number): V1Container {
  if (scale === 1) return container;
  const copy = { ...container };
  for (const kind of ['readinessProbe', 'livenessProbe', 'startupProbe'] as const) {
    const probe = container[kind];
    if (probe)
      copy[kind] = {
        ...probe,
        periodSeconds: (probe.periodSeconds ?? 10) * scale,
        timeoutSeconds: (probe.timeoutSeconds ?? 1) * scale,
      };
  }
  return copy;
}

export interface ProbeCounts {
  successes: number;
  failures: number;
  verdict: boolean;
}

/** One probe result against the thresholds (pure): consecutive counts and the verdict. */
export function judge(
  counts: ProbeCounts,
  ok: boolean,
  kind: 'readiness' | 'liveness' | 'startup',
  probe: V1Probe,
): ProbeCounts {
  const successes = ok ? counts.successes + 1 : 0;
  const failures = ok ? 0 : counts.failures + 1;
  // Liveness and startup probes must have successThreshold 1 (the API server enforces it).
  const successThreshold = kind === 'readiness' ? (probe.successThreshold ?? 1) : 1;
  let verdict = counts.verdict;
  if (ok && successes >= successThreshold) verdict = true;
  if (!ok && failures >= (probe.failureThreshold ?? 3)) verdict = false;
  return { successes, failures, verdict };
}

/**
 * Exec probes running at once, over every pod of this kubelet. Each is a few processes
 * (`sh -c "redis-cli ping | grep"`: three); hundreds of pods' probes forked together only
 * queue for the CPUs, and then time out. Past the limit a probe waits for a slot, and its
 * timeout starts when it runs, as a kubelet's starts when the runtime runs the command.
 */
const EXEC_PROBES_AT_ONCE = Math.max(4, availableParallelism() * 4);
let execRunning = 0;
const execWaiting: (() => void)[] = [];

async function inExecSlot<T>(run: () => Promise<T>): Promise<T> {
  if (execRunning < EXEC_PROBES_AT_ONCE) execRunning++;
  else await new Promise<void>((resolve) => execWaiting.push(resolve));
  try {
    return await run();
  } finally {
    // The slot passes to the next waiter, or is freed.
    const next = execWaiting.shift();
    if (next) next();
    else execRunning--;
  }
}

export async function runProbe(probe: V1Probe, target: ProbeTarget): Promise<boolean> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.exec?.command) {
    const command = probe.exec.command;
    const result = await inExecSlot(() => target.exec(command, timeoutMs));
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
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
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
    req.once('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.once('error', () => resolve(false));
    req.end();
  });
}
