// The event source's credential for ingest: a projected ServiceAccount token (audience
// knredis-ingest) that the kubelet rotates by swapping the file. It is re-read whenever the
// file changes (a stat per event, cheaper than a read), so a rotated token is sent at once.
import { readFileSync, statSync } from 'node:fs';

export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
}

export function projectedToken(path: string): () => string {
  let seen = '';
  let token = '';
  const read = () => {
    let stat;
    try {
      stat = statSync(path);
    } catch (error) {
      throw new TokenFileError(
        `cannot read the token for ingest at ${path} (${(error as NodeJS.ErrnoException).code}): mount the projected ServiceAccount token there, or set EVENT_SOURCE_TOKEN_FILE`,
      );
    }
    const version = `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
    if (version !== seen) {
      token = readFileSync(path, 'utf8').trim();
      seen = version;
    }
    return token;
  };
  read(); // a missing token is a start-up error, not a stream of refused events
  return read;
}
