import { expect } from 'chai';
import {
  normalizePrefix,
  ObjectNotFoundError,
  ObjectStoreAbortedError,
  ObjectStoreAccessDeniedError,
  ObjectStoreError,
  ObjectStoreUnreachableError,
  toObjectStoreError,
} from '../../../shared/io/object-store.ts';

const place = { operation: 'get', bucket: 'b', key: 'backups/s0.rdb' };
/** What the SDK throws for a service error: name and Code, status in $metadata. */
const serviceError = (name: string, status: number, message = 'server text') =>
  Object.assign(new Error(message), { name, Code: name, $metadata: { httpStatusCode: status } });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 10.0.0.1:9000`), { code });

describe('shared/io/object-store errors', () => {
  const table: Array<[string, unknown, new (...a: never[]) => ObjectStoreError, string, RegExp]> = [
    [
      'a missing key',
      serviceError('NoSuchKey', 404),
      ObjectNotFoundError,
      'not-found',
      /not found \(NoSuchKey, HTTP 404\)/,
    ],
    ['a HEAD of a missing key', serviceError('NotFound', 404), ObjectNotFoundError, 'not-found', /not found/],
    ['a missing bucket', serviceError('NoSuchBucket', 404), ObjectNotFoundError, 'not-found', /bucket does not exist/],
    [
      'a wrong secret',
      serviceError('SignatureDoesNotMatch', 403),
      ObjectStoreAccessDeniedError,
      'access-denied',
      /access denied \(SignatureDoesNotMatch, HTTP 403\)/,
    ],
    [
      'an unknown key id',
      serviceError('InvalidAccessKeyId', 403),
      ObjectStoreAccessDeniedError,
      'access-denied',
      /access denied/,
    ],
    ['a bare 403', serviceError('UnknownError', 403), ObjectStoreAccessDeniedError, 'access-denied', /access denied/],
    [
      'a refused connection',
      socketError('ECONNREFUSED'),
      ObjectStoreUnreachableError,
      'unreachable',
      /cannot reach the server \(ECONNREFUSED\)/,
    ],
    ['an unknown host', socketError('ENOTFOUND'), ObjectStoreUnreachableError, 'unreachable', /cannot reach/],
    [
      'a 503',
      serviceError('SlowDown', 503),
      ObjectStoreUnreachableError,
      'unreachable',
      /server failed \(SlowDown, HTTP 503\)/,
    ],
    [
      'an abort',
      Object.assign(new Error('Request aborted'), { name: 'AbortError' }),
      ObjectStoreAbortedError,
      'aborted',
      /aborted/,
    ],
    ['an aborted signal', AbortSignal.abort().reason, ObjectStoreAbortedError, 'aborted', /aborted/],
    [
      'anything else',
      serviceError('InvalidRange', 416),
      ObjectStoreError,
      'failed',
      /failed \(InvalidRange, HTTP 416\)/,
    ],
  ];
  for (const [what, thrown, type, kind, message] of table) {
    it(`types ${what} as ${kind}`, () => {
      const error = toObjectStoreError(thrown, place);
      expect(error).to.be.instanceOf(type).and.to.include({ kind });
      expect(error.message).to.match(message);
      expect(error.message).to.match(/^object store: get b\/backups\/s0\.rdb: /);
    });
  }

  it("never shows the server's text or an odd code, which may echo the request", () => {
    const echo = 'Authorization: AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/... secret=abc';
    const error = toObjectStoreError(
      Object.assign(new Error(echo), { name: 'Weird', Code: echo, $metadata: { httpStatusCode: 400 } }),
      place,
    );
    expect(error.message).not.to.contain('AKIA').and.not.to.contain('secret');
    expect(error.message).to.match(/failed \(Weird, HTTP 400\)/);
  });

  it('keeps an error it already typed', () => {
    const typed = new ObjectNotFoundError('not-found', place, 'not found');
    expect(toObjectStoreError(typed, { operation: 'list', bucket: 'c' })).to.equal(typed);
  });

  const prefixes: Array<[string | undefined, string]> = [
    [undefined, ''],
    ['', ''],
    ['/', ''],
    ['backups', 'backups/'],
    ['/backups/', 'backups/'],
    ['a/b//', 'a/b/'],
  ];
  for (const [given, normal] of prefixes) {
    it(`normalizes the prefix ${JSON.stringify(given)} to ${JSON.stringify(normal)}`, () => {
      expect(normalizePrefix(given)).to.equal(normal);
    });
  }
});
