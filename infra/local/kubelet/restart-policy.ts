// When an exited container runs again (pure): restartPolicy and a capped exponential back-off,
// like the kubelet's CrashLoopBackOff with shorter steps so local tests stay quick.

export interface BackoffSettings {
  /** Delay before the first restart, in ms. */
  readonly baseMs: number;
  /** Longest delay between restarts, in ms. */
  readonly capMs: number;
}

export const defaultBackoff: BackoffSettings = { baseMs: 1000, capMs: 10_000 };

export function shouldRestart(restartPolicy: string | undefined, exitCode: number): boolean {
  if (restartPolicy === 'Never') return false;
  if (restartPolicy === 'OnFailure') return exitCode !== 0;
  return true;
}

/**
 * Delay before restart number `restartCount + 1`. A container that ran for longer than ten
 * times the cap since its last start is considered healthy again and restarts at once.
 */
export function restartDelay(
  restartCount: number,
  ranForMs: number,
  settings: BackoffSettings = defaultBackoff,
): number {
  if (ranForMs > settings.capMs * 10) return 0;
  return Math.min(settings.capMs, settings.baseMs * 2 ** Math.min(restartCount, 20));
}

/** Exit code and reason of a process, as a container runtime reports them. */
export function exitOf(
  code: number | null,
  signal: string | null,
  signalNumber?: number,
): { exitCode: number; reason: string; signal?: number } {
  if (signal !== null && signalNumber !== undefined)
    return { exitCode: 128 + signalNumber, reason: 'Error', signal: signalNumber };
  const exitCode = code ?? 0;
  return { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' };
}
