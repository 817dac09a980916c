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
    return (await this.read(from)).requests;
  }

  /**
   * The requests of the whole lines after byte `from`, and the offset after the last of them
   * (where the next read starts: a line still being written is read then). An offset inside a
   * line starts at the next one; an offset past the end means the API server rotated the log
   * (--audit-log-maxsize), and the new file is read from its start.
   */
  async read(from: number): Promise<{ requests: AuditedRequest[]; end: number }> {
    const file = await open(this.path, 'r');
    try {
      const { size } = await file.stat();
      const start = from > size ? 0 : from;
      const buffer = Buffer.alloc(size - start);
      await file.read(buffer, 0, buffer.length, start);
      let first = 0;
      if (start > 0) {
        const before = Buffer.alloc(1);
        await file.read(before, 0, 1, start - 1);
        if (before[0] !== 0x0a) first = buffer.indexOf(0x0a) + 1;
      }
      const last = buffer.lastIndexOf(0x0a) + 1;
      if (last <= first) return { requests: [], end: start + first };
      const lines = buffer.toString('utf8', first, last - 1).split('\n');
      const requests = lines.flatMap((line): AuditedRequest[] => {
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
      return { requests, end: start + last };
    } finally {
      await file.close();
    }
  }

  /** Waits until `who` made no request (watches aside) for quietMs; returns the end offset. */
  async quiet(who: (r: AuditedRequest) => boolean, quietMs: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    // read() starts an offset that falls inside a line at the next one
    let offset = await this.size();
    let lastSeen = Date.now();
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const { requests, end } = await this.read(offset);
      if (requests.some((r) => who(r) && !isWatch(r))) lastSeen = Date.now();
      offset = end;
      if (Date.now() - lastSeen >= quietMs) return offset;
      if (Date.now() > deadline) throw new Error(`requests did not stop within ${timeoutMs / 1000}s`);
    }
  }
}
