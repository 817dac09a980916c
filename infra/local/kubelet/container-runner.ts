// One container of a pod: its process, probes, restarts with back-off, and the state the pod
// status reports. The pod worker decides when to start it; this keeps the bookkeeping.
import type { V1Container } from '@kubernetes/client-node';
import type { Logger } from '../../../shared/io/log.ts';
import type { Exec, ProcessExit, RunningProcess } from './process-runner.ts';
import { Prober } from './probes.ts';
import { exitOf, restartDelay, shouldRestart, type BackoffSettings } from './restart-policy.ts';
import type { ContainerState, ContainerView } from './status.ts';

/** How a container runs, from its pod's runtime: a process on the host, or an OCI container. */
export interface Launch {
  /** Starts it; rejects with a reason and message when the runtime cannot (no such image...). */
  readonly start: () => Promise<RunningProcess>;
  /** Runs a command beside it: exec probes and the preStop hook. */
  readonly exec: Exec;
  /** What runs, for the log. */
  readonly program: string;
}

/** Why a container could not start, as its status says it (Waiting). */
export class StartRefused extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** How long a container that could not start waits before the next try. */
const refusedRetryMs = 5000;

export interface RunnerContext {
  readonly log: Logger;
  readonly restartPolicy: string;
  readonly backoff: BackoffSettings;
  /** Something changed that the pod status or the pod worker cares about. */
  readonly onChange: () => void;
}

export class ContainerRunner {
  state: ContainerState = { kind: 'waiting', reason: 'ContainerCreating' };
  lastTerminated: (ContainerState & { kind: 'terminated' }) | undefined;
  restartCount = 0;
  process: RunningProcess | undefined;
  /** Not before this time (ms) may the container start again. */
  nextStartAt = 0;
  /** Set while the pod terminates or its node is down: exits are final, nothing restarts. */
  private halted = false;
  private hasRun = false;
  private probers: Prober[] = [];
  private readiness: Prober | undefined;
  private startup: Prober | undefined;
  private exec: Exec | undefined;
  /** A start is under way (the runtime has not answered yet). */
  private starting = false;

  constructor(
    readonly spec: V1Container,
    readonly isInit: boolean,
    private readonly ctx: RunnerContext,
  ) {}

  get name(): string {
    return this.spec.name;
  }
  get running(): boolean {
    return this.process?.isAlive() ?? false;
  }
  get succeeded(): boolean {
    return this.state.kind === 'terminated' && this.state.exitCode === 0;
  }
  get started(): boolean {
    return this.running && (this.startup ? this.startup.verdict : true);
  }
  get ready(): boolean {
    if (this.isInit || !this.started) return false;
    return this.readiness ? this.readiness.verdict : true;
  }
  /** Exited and will not run again under the pod's restartPolicy. */
  get finished(): boolean {
    return this.state.kind === 'terminated' && !this.running && !this.willRestart(this.state.exitCode);
  }

  /** Carries the restart count and history over from a status written by an earlier kubelet. */
  adopt(restartCount: number, hasRun: boolean): void {
    this.restartCount = restartCount;
    this.hasRun = hasRun;
  }

  canStart(now: number): boolean {
    return (
      !this.halted &&
      !this.starting &&
      !this.running &&
      now >= this.nextStartAt &&
      !this.finished &&
      !(this.isInit && this.succeeded)
    );
  }

  wait(reason: string, message: string, retryAfterMs: number): void {
    this.state = { kind: 'waiting', reason, message };
    this.nextStartAt = Date.now() + retryAfterMs;
  }

  async start(launch: Launch, podIP: string): Promise<void> {
    // The pod began terminating or its node failed while this start was being prepared.
    if (this.halted) return;
    this.starting = true;
    let proc: RunningProcess;
    try {
      proc = await launch.start();
    } catch (error) {
      const refused = error instanceof StartRefused ? error : new StartRefused('RunContainerError', String(error));
      this.ctx.log.warn(
        { container: this.name, reason: refused.reason, err: refused.message },
        'container not started',
      );
      this.wait(refused.reason, refused.message, refusedRetryMs);
      return;
    } finally {
      this.starting = false;
    }
    this.exec = launch.exec;
    if (this.hasRun) this.restartCount++;
    this.hasRun = true;
    this.process = proc;
    this.state = { kind: 'running', startedAt: proc.startedAt };
    this.ctx.log.info(
      { container: this.name, pid: proc.pid, program: launch.program, restartCount: this.restartCount },
      'container started',
    );
    void proc.exited.then((exit) => this.onExit(proc, exit));
    // Halted while the runtime was starting it: stop() found nothing to stop.
    if (this.halted) {
      proc.signal('SIGKILL');
      return;
    }
    if (!this.isInit) this.startProbes(podIP);
  }

  /** preStop, SIGTERM, up to graceMs, SIGKILL; resolves once the process is gone. */
  async stop(graceMs: number, runPreStop: boolean): Promise<void> {
    this.halted = true;
    this.stopProbes();
    const proc = this.process;
    if (!proc || !proc.isAlive()) return;
    const deadline = Date.now() + graceMs;
    const preStop = this.spec.lifecycle?.preStop?.exec?.command;
    if (runPreStop && preStop && this.exec && graceMs > 0) {
      const result = await this.exec(preStop, graceMs);
      this.ctx.log.info(
        { container: this.name, exitCode: result.exitCode, timedOut: result.timedOut },
        'preStop hook ran',
      );
    }
    if (graceMs > 0) {
      proc.signal('SIGTERM');
      proc.signal('SIGCONT'); // a frozen process must run to handle SIGTERM
      const left = Math.max(0, deadline - Date.now());
      await Promise.race([proc.exited, new Promise((r) => setTimeout(r, left))]);
    }
    proc.signal('SIGKILL');
    await proc.exited;
  }

  /** The container may run again (its node came back). */
  resume(): void {
    this.halted = false;
    this.nextStartAt = 0;
  }

  signal(signal: NodeJS.Signals): boolean {
    return this.process?.signal(signal) ?? false;
  }

  view(): ContainerView {
    return {
      name: this.name,
      image: this.spec.image ?? '',
      state: this.state,
      ready: this.ready,
      started: this.started,
      restartCount: this.restartCount,
      ...(this.lastTerminated ? { lastTerminated: this.lastTerminated } : {}),
      ...(this.process
        ? {
            containerID: this.process.containerID ?? `local://${this.process.pid}`,
            ...(this.process.imageID ? { imageID: this.process.imageID } : {}),
          }
        : {}),
    };
  }

  private willRestart(exitCode: number): boolean {
    if (this.halted) return false;
    // Init containers run again only after a failure, whatever the pod's policy but Never.
    if (this.isInit) return exitCode !== 0 && this.ctx.restartPolicy !== 'Never';
    return shouldRestart(this.ctx.restartPolicy, exitCode);
  }

  private onExit(proc: RunningProcess, exit: ProcessExit): void {
    if (this.process !== proc) return;
    this.stopProbes();
    const { exitCode, reason, signal } = exitOf(exit.code, exit.signal, exit.signalNumber);
    const terminated = {
      kind: 'terminated' as const,
      exitCode,
      reason: exit.reason ?? reason,
      startedAt: proc.startedAt,
      finishedAt: exit.at,
      ...(signal !== undefined ? { signal } : {}),
    };
    this.ctx.log.info({ container: this.name, pid: proc.pid, exitCode, signal: exit.signal }, 'container exited');
    if (this.willRestart(exitCode)) {
      this.lastTerminated = terminated;
      const delay = restartDelay(this.restartCount, exit.at - proc.startedAt, this.ctx.backoff);
      this.nextStartAt = exit.at + delay;
      this.state = {
        kind: 'waiting',
        reason: 'CrashLoopBackOff',
        message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${this.name}`,
      };
    } else {
      this.state = terminated;
    }
    this.ctx.onChange();
  }

  private startProbes(podIP: string): void {
    const exec = this.exec;
    if (!exec) return;
    const target = { podIP, container: this.spec, exec };
    const onLiveness = (alive: boolean) => {
      if (alive || this.halted) return;
      this.ctx.log.warn({ container: this.name }, 'liveness probe failed; restarting the container');
      const proc = this.process;
      proc?.signal('SIGTERM');
      proc?.signal('SIGCONT');
      setTimeout(() => proc?.signal('SIGKILL'), 2000).unref();
    };
    const onStarted = (ok: boolean) => {
      if (ok) this.startLiveAndReady(target, onLiveness);
      this.ctx.onChange();
    };
    if (this.spec.startupProbe) {
      // A startup probe that keeps failing kills the container, like a failed liveness probe.
      this.startup = new Prober(this.spec.startupProbe, target, 'startup', onStarted, () => onLiveness(false));
      this.probers.push(this.startup);
      this.startup.start();
    } else {
      this.startLiveAndReady(target, onLiveness);
    }
  }

  private startLiveAndReady(
    target: ConstructorParameters<typeof Prober>[1],
    onLiveness: (alive: boolean) => void,
  ): void {
    if (this.spec.readinessProbe) {
      this.readiness = new Prober(this.spec.readinessProbe, target, 'readiness', () => this.ctx.onChange());
      this.probers.push(this.readiness);
      this.readiness.start();
    }
    if (this.spec.livenessProbe) {
      const liveness = new Prober(this.spec.livenessProbe, target, 'liveness', onLiveness);
      this.probers.push(liveness);
      liveness.start();
    }
  }

  private stopProbes(): void {
    for (const p of this.probers) p.stop();
    this.probers = [];
    this.readiness = undefined;
    this.startup = undefined;
  }
}
