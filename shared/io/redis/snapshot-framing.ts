// Where a SYNC payload ends: after the length the node announced (`$<len>`), or, diskless,
// right before the 40-byte mark it announced (`$EOF:<mark>`) and sends after the last byte.
// What follows the payload would be the replication feed; it is never handed on.

export const EOF_MARK_BYTES = 40;

/** Splits incoming bytes into payload and whatever follows it; `done` once the payload ended. */
export interface Framing {
  take(chunk: Buffer): { payload: Buffer; done: boolean };
}

export function counted(bytes: number): Framing {
  let left = bytes;
  return {
    take(chunk) {
      const payload = chunk.length > left ? chunk.subarray(0, left) : chunk;
      left -= payload.length;
      return { payload, done: left === 0 };
    },
  };
}

/** Diskless form: the payload ends with the 40-byte mark, so the last 40 bytes are held back. */
export function markedBy(mark: Buffer): Framing {
  let held = Buffer.alloc(0);
  return {
    take(chunk) {
      const data = held.length ? Buffer.concat([held, chunk]) : chunk;
      const at = data.indexOf(mark);
      if (at >= 0) return { payload: data.subarray(0, at), done: true };
      const keep = Math.min(EOF_MARK_BYTES - 1, data.length);
      held = Buffer.from(data.subarray(data.length - keep));
      return { payload: data.subarray(0, data.length - keep), done: false };
    },
  };
}
