// Hash slot arithmetic: 16384 slots, inclusive ranges, even layouts, and the key -> slot
// function Redis Cluster uses (CRC16/XMODEM of the key or of its {hash tag}).
export const SLOT_COUNT = 16384;

/** An inclusive range of slots, as CLUSTER NODES and ADDSLOTSRANGE write them. */
export interface SlotRange {
  readonly start: number;
  readonly end: number;
}

export function countSlots(ranges: readonly SlotRange[]): number {
  return ranges.reduce((sum, r) => sum + (r.end - r.start + 1), 0);
}

/** Sorted, merged ranges of a set of slots. */
export function toRanges(slots: Iterable<number>): SlotRange[] {
  const sorted = [...new Set(slots)].sort((a, b) => a - b);
  const ranges: SlotRange[] = [];
  for (const slot of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && last.end + 1 === slot) ranges[ranges.length - 1] = { start: last.start, end: slot };
    else ranges.push({ start: slot, end: slot });
  }
  return ranges;
}

export function fromRanges(ranges: readonly SlotRange[]): number[] {
  const slots: number[] = [];
  for (const r of ranges) for (let s = r.start; s <= r.end; s++) slots.push(s);
  return slots;
}

/** `0-5460 5462` style, for messages. */
export function formatRanges(ranges: readonly SlotRange[]): string {
  return ranges.map((r) => (r.start === r.end ? `${r.start}` : `${r.start}-${r.end}`)).join(' ');
}

/**
 * Slot counts for n masters, as even as possible: the first `16384 % n` get one more.
 * Sums to 16384.
 */
export function evenCounts(n: number): number[] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`need at least one master, got ${n}`);
  const base = Math.floor(SLOT_COUNT / n);
  const extra = SLOT_COUNT % n;
  return Array.from({ length: n }, (_, i) => base + (i < extra ? 1 : 0));
}

/** Contiguous even ranges for n masters, in order: the bootstrap layout. */
export function evenRanges(n: number): SlotRange[] {
  const ranges: SlotRange[] = [];
  let start = 0;
  for (const count of evenCounts(n)) {
    ranges.push({ start, end: start + count - 1 });
    start += count;
  }
  return ranges;
}

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ (CRC16_TABLE[((crc >> 8) ^ byte) & 0xff] ?? 0);
  return crc;
}

const encoder = new TextEncoder();

/** The slot of a key: CRC16 of the first non-empty {hash tag}, else of the whole key. */
export function keySlot(key: string | Uint8Array): number {
  const bytes = typeof key === 'string' ? encoder.encode(key) : key;
  const open = bytes.indexOf(0x7b);
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) & (SLOT_COUNT - 1);
  }
  return crc16(bytes) & (SLOT_COUNT - 1);
}
