import { expect } from 'chai';
import { crc64, crc64Hex, crc64Init, crc64Update } from '../../../shared/core/rdb/crc64.ts';

describe('crc64', () => {
  it('gives Redis check value for "123456789"', () => {
    expect(crc64Hex(crc64(Buffer.from('123456789')))).to.equal('e9c6d914c4b8d9ca');
  });

  it('gives the same CRC however the bytes are split and aligned', () => {
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 37 + 11) & 0xff));
    const whole = crc64Hex(crc64(bytes));
    for (const [at, size] of [
      [1, 1],
      [1, 7],
      [3, 8],
      [0, 13],
      [5, 500],
    ] as const) {
      let crc = crc64Update(crc64Init, bytes.subarray(0, at));
      for (let i = at; i < bytes.length; i += size) crc = crc64Update(crc, bytes.subarray(i, i + size));
      expect(crc64Hex(crc), `split at ${at} by ${size}`).to.equal(whole);
    }
    // Unaligned views of a larger buffer take the byte path, aligned ones the word path.
    const shifted = Buffer.alloc(1003);
    bytes.copy(shifted, 3);
    expect(crc64Hex(crc64(new Uint8Array(shifted.buffer, shifted.byteOffset + 3, 1000)))).to.equal(whole);
  });
});
