// API requests as the API server saw them: its audit log (an environment started with
// `audit: true`, infra/local/control-plane.ts), read from a byte offset, one request a line.
import { open, stat } from 'node:fs/promises';

export interface AuditedRequest {
  readonly verb: string;
  readonly userAgent: string;
  readonly username: string;
  /** `pods`, `redisclusters/status`, ... */
  readonly resource: string;
  readonly at: number;
}

const READ_VERBS = new Set(['get', 'list', 'watch']);
export const isRead = (r: AuditedRequest) => READ_VERBS.has(r.verb);
/** A watch is a stream, not a request per object: counted apart from reads. */
export const isWatch = (r: AuditedRequest) => r.verb === 'watch';

interface AuditEvent {
  stage?: string;
  verb?: string;
  userAgent?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string };
  stageTimestamp?: string;
}

export class AuditLog {
  constructor(readonly path: string) {}

  async size(): Promise<number> {
    return (await stat(this.path)).size;
  }

  /** Every request answered after byte `from` (a watch counts once, when it starts). */
  async since(from: number): Promise<AuditedRequest[]> {
    const file = await open(this.path, 'r');
    try {
      const { size } = await file.stat();
      const buffer = Buffer.alloc(Math.max(0, size - from));
      await file.read(buffer, 0, buffer.length, from);
      const lines = buffer.toString('utf8').split('\n');
      lines.pop(); // a line still being written
      return lines.flatMap((line) => {
        const e = JSON.parse(line) as AuditEvent;
        const watchStart = e.verb === 'watch' && e.stage === 'ResponseStarted';
        if (!watchStart && (e.verb === 'watch' || e.stage !== 'ResponseComplete')) return [];
        const ref = e.objectRef ?? {};
        return [
          {
            verb: e.verb ?? '',
            userAgent: e.userAgent ?? '',
            username: e.user?.username ?? '',
            resource: ref.subresource ? `${ref.resource}/${ref.subresource}` : (ref.resource ?? ''),
            at: Date.parse(e.stageTimestamp ?? '') || 0,
          },
        ];
      });
    } finally {
      await file.close();
    }
  }

  /** Waits until `who` made no request (watches aside) for quietMs; returns the end offset. */
  async quiet(who: (r: AuditedRequest) => boolean, quietMs: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    let offset = await this.size();
    let lastSeen = Date.now();
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const size = await this.size();
      if ((await this.since(offset)).some((r) => who(r) && !isWatch(r))) lastSeen = Date.now();
      offset = size;
      if (Date.now() - lastSeen >= quietMs) return offset;
      if (Date.now() > deadline) throw new Error(`requests did not stop within ${timeoutMs / 1000}s`);
    }
  }
}
