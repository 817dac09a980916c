// A point-in-time RDB of one node, taken over the replication protocol as `redis-cli --rdb`
// does (redis-cli.c sendSync/getRDB): the node forks a BGSAVE for it, so a replica serves it
// without touching its master. Bytes stream through with backpressure (never a whole RDB in
// memory), and the connection closes right after the payload: it would carry the replication
// feed next. REPLCONF rdb-only (7.0+) tells the node this peer wants the RDB alone, so it is
// never counted as a replica nor fed writes; `capa eof` lets a diskless node stream it.
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import { Readable } from 'node:stream';
import { TransientError } from '../../core/outcome.ts';
import type { RedisAuth } from './connection.ts';
import { counted, EOF_MARK_BYTES, markedBy, type Framing } from './snapshot-framing.ts';

export interface SnapshotOptions {
  readonly host: string;
  readonly port: number;
  readonly auth?: RedisAuth;
  readonly tls?: ConnectionOptions;
  /** Aborting destroys the connection; the stream (or the pending promise) fails with the reason. */
  readonly signal?: AbortSignal;
  readonly connectTimeoutMs?: number;
  /** Silence allowed on the connection; the node sends a newline each second while it forks. */
  readonly idleTimeoutMs?: number;
}

/** The RDB bytes, and their size when the node said it up front (disk-based transfer). */
export interface Snapshot {
  readonly stream: Readable;
  readonly bytes?: number;
}

/** The node refused or broke the transfer; the message is the node's reply, never a command. */
export class SnapshotError extends TransientError {
  override readonly name = 'SnapshotError';
  constructor(
    readonly node: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`snapshot from ${node}: ${detail}`, options);
  }
}

const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** A reply line longer than this is not the protocol we speak. */
const MAX_LINE = 4096;

/** Asks `host:port` for an RDB; resolves once the transfer starts (the node's BGSAVE forked). */
export async function fetchSnapshot(o: SnapshotOptions): Promise<Snapshot> {
  o.signal?.throwIfAborted();
  const node = `${o.host}:${o.port}`;
  const socket = await open(o, node);
  const onAbort = () => socket.destroy();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const commands = [
      ...(o.auth?.password ? [{ command: authCommand(o.auth), required: true }] : []),
      { command: ['REPLCONF', 'capa', 'eof'], required: false },
      { command: ['REPLCONF', 'rdb-only', '1'], required: false },
    ];
    const lines = lineReader(socket, node);
    // One at a time: SYNC is refused while replies to earlier commands are still unsent.
    for (const r of commands) {
      socket.write(resp(r.command));
      const line = await lines.next();
      if (line.startsWith('-') && r.required) throw new SnapshotError(node, line.slice(1));
    }
    socket.write('SYNC\r\n');
    // Newlines alone are keep-alives while the node forks and writes.
    let header = '';
    while (header === '') header = await lines.next();
    if (!header.startsWith('$')) throw new SnapshotError(node, header.replace(/^-/, ''));
    const rest = lines.rest();
    if (header.startsWith('$EOF:')) {
      const mark = Buffer.from(header.slice(5));
      if (mark.length !== EOF_MARK_BYTES) throw new SnapshotError(node, 'bad end-of-file mark');
      return { stream: transfer(socket, rest, markedBy(mark), o, node) };
    }
    const bytes = Number(header.slice(1));
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new SnapshotError(node, 'bad payload length');
    return { stream: transfer(socket, rest, counted(bytes), o, node), bytes };
  } catch (error) {
    socket.destroy();
    throw o.signal?.aborted ? o.signal.reason : error;
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
}

function authCommand(auth: RedisAuth): string[] {
  return auth.username ? ['AUTH', auth.username, auth.password ?? ''] : ['AUTH', auth.password ?? ''];
}

function resp(args: string[]): Buffer {
  return Buffer.from(args.reduce((out, a) => `${out}$${Buffer.byteLength(a)}\r\n${a}\r\n`, `*${args.length}\r\n`));
}

function open(o: SnapshotOptions, node: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = o.tls
      ? connectTls({ ...o.tls, host: o.host, port: o.port })
      : connectTcp({ host: o.host, port: o.port });
    const timer = setTimeout(
      () => fail(new SnapshotError(node, 'connect timeout')),
      o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    );
    const onAbort = () => fail(o.signal?.reason);
    const fail = (error: unknown) => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onError = (error: Error) => fail(new SnapshotError(node, 'connection failed', { cause: error }));
    const cleanup = () => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      socket.off('error', onError);
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once(o.tls ? 'secureConnect' : 'connect', () => {
      cleanup();
      socket.setTimeout(o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

/** Reads reply lines (CRLF or a bare LF) until the payload starts; `rest()` is what followed. */
function lineReader(socket: Socket, node: string) {
  let pending = Buffer.alloc(0);
  let waiter: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  let failure: unknown;
  const wake = () => waiter?.resolve();
  const onData = (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    wake();
  };
  const onEnd = (error?: unknown) => {
    failure = error ?? new SnapshotError(node, 'connection closed before the payload');
    waiter?.reject(failure);
  };
  const onError = (e: Error) => onEnd(new SnapshotError(node, 'connection failed', { cause: e }));
  const onTimeout = () => socket.destroy(new SnapshotError(node, 'no reply within the idle timeout'));
  const onClose = () => onEnd();
  socket.on('data', onData);
  socket.on('error', onError);
  socket.on('close', onClose);
  socket.on('timeout', onTimeout);
  return {
    async next(): Promise<string> {
      for (;;) {
        const at = pending.indexOf(0x0a);
        if (at >= 0) {
          const line = pending.subarray(0, at).toString('latin1').replace(/\r$/, '');
          pending = pending.subarray(at + 1);
          return line;
        }
        if (pending.length > MAX_LINE) throw new SnapshotError(node, 'reply line too long');
        if (failure) throw failure;
        await new Promise<void>((resolve, reject) => (waiter = { resolve, reject }));
        waiter = undefined;
      }
    },
    /** Stops reading lines; the socket is paused with `pending` the start of the payload. */
    rest(): Buffer {
      socket.pause();
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.off('timeout', onTimeout);
      return pending;
    },
  };
}

function transfer(socket: Socket, first: Buffer, framing: Framing, o: SnapshotOptions, node: string) {
  const { signal } = o;
  let done = false;
  const onAbort = () => stream.destroy(signal?.reason);
  // Silence counts only while this end reads: a slow consumer is not a stalled node.
  const stream = new Readable({
    read: () => {
      socket.setTimeout(o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
      socket.resume();
    },
    destroy(error, callback) {
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      callback(error);
    },
  });
  const onData = (chunk: Buffer) => {
    if (done) return;
    const { payload, done: ended } = framing.take(chunk);
    done = ended;
    const more = payload.length === 0 || stream.push(payload);
    if (done) {
      stream.push(null);
      socket.destroy();
    } else if (!more) {
      socket.pause();
      socket.setTimeout(0);
    }
  };
  socket.on('data', onData);
  socket.on('timeout', () => stream.destroy(new SnapshotError(node, 'the transfer stalled')));
  socket.on('error', (e) => stream.destroy(new SnapshotError(node, 'connection failed', { cause: e })));
  socket.on('close', () => {
    if (!done) stream.destroy(new SnapshotError(node, 'connection closed inside the payload'));
  });
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  if (first.length > 0) onData(first);
  return stream;
}
