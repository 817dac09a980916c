// A snapshot that cannot be read whole is never restored in part: every defect is one typed
// error, with the byte offset where it showed, so a restore stops before writing a wrong value.

export type RdbDefect =
  /** the source ended before the EOF opcode (or inside a value) */
  | 'truncated'
  /** the file's trailing CRC-64 does not match its bytes */
  | 'checksum'
  /** a byte sequence no Redis writes (unknown type, bad LZF data, bad header) */
  | 'corrupt'
  /** valid, but of a format this reader does not handle (a newer RDB version, pre-GA modules) */
  | 'unsupported';

export class RdbFormatError extends Error {
  override readonly name = 'RdbFormatError';
  constructor(
    readonly defect: RdbDefect,
    readonly offset: number,
    detail: string,
  ) {
    super(`RDB ${defect} at byte ${offset}: ${detail}`);
  }
}
