import { expect } from 'chai';
import { mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectedToken, TokenFileError } from '../../../functions/event-source/token-file.ts';

describe('event-source/token-file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'knredis-token-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the token, and the new one once the kubelet swaps the projected file', () => {
    // The kubelet's atomic writer: token -> ..data/token, ..data a symlink swapped by a rename.
    const version = (name: string, token: string) => {
      writeFileSync(join(dir, name), token + '\n');
      symlinkSync(name, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    };
    version('v1', 'first');
    symlinkSync('..data', join(dir, 'token'));
    const token = projectedToken(join(dir, 'token'));
    expect(token()).to.equal('first');
    version('v2', 'second-one');
    expect(token()).to.equal('second-one');
  });

  it('fails at start with the path and how to fix it when there is no token', () => {
    expect(() => projectedToken(join(dir, 'missing'))).to.throw(
      TokenFileError,
      /missing \(ENOENT\).*EVENT_SOURCE_TOKEN_FILE/,
    );
  });
});
