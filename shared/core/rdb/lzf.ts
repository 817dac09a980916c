// LZF decompression (liblzf's lzf_d.c), for the strings RDB stores compressed. Only keys and
// aux fields are decoded: values go into DUMP payloads as they are.
import { RdbFormatError } from './errors.ts';

/** Decompresses `input` into exactly `length` bytes; `offset` is for the error only. */
export function lzfDecompress(input: Uint8Array, length: number, offset: number): Uint8Array {
  const out = new Uint8Array(length);
  let ip = 0;
  let op = 0;
  const bad = (why: string) => new RdbFormatError('corrupt', offset, `bad LZF data: ${why}`);
  while (ip < input.length) {
    const ctrl = input[ip++]!;
    if (ctrl < 32) {
      // A run of ctrl + 1 literal bytes.
      const n = ctrl + 1;
      if (op + n > length || ip + n > input.length) throw bad('literal run past the end');
      out.set(input.subarray(ip, ip + n), op);
      ip += n;
      op += n;
      continue;
    }
    // A back reference: length (3 bits, 7 = one more byte) and a 13-bit distance.
    let n = ctrl >>> 5;
    if (n === 7) {
      if (ip >= input.length) throw bad('reference past the end');
      n += input[ip++]!;
    }
    if (ip >= input.length) throw bad('reference past the end');
    const from = op - ((ctrl & 0x1f) << 8) - 1 - input[ip++]!;
    n += 2;
    if (from < 0) throw bad('reference before the start');
    if (op + n > length) throw bad('reference past the end of the output');
    // Byte by byte: the source may overlap what is being written (a repeated pattern).
    for (let i = 0; i < n; i++) out[op + i] = out[from + i]!;
    op += n;
  }
  if (op !== length) throw bad(`${op} bytes instead of ${length}`);
  return out;
}
