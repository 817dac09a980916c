// The object store backups are written to: an S3-compatible bucket (AWS S3, or a server such as
// SeaweedFS or MinIO at `endpoint`). The only code that talks S3. The AWS SDK (several MB of
// modules) is loaded on the first call, not at import: a process that never touches a backup
// does not pay for it at start.
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { Upload } from '@aws-sdk/lib-storage';
import { ObjectStoreError, toObjectStoreError, unlessObjectNotFound, type ErrorPlace } from './object-store-errors.ts';

export * from './object-store-errors.ts';

export interface S3StoreConfig {
  /** An S3-compatible server's URL; absent for AWS S3 (the region's endpoint). */
  endpoint?: string;
  region: string;
  bucket: string;
  /** Prepended to every key ('backups/'); keys returned by list() are relative to it. */
  prefix?: string;
  /** Bucket in the path (/bucket/key) rather than the host name; default: true with an endpoint. */
  forcePathStyle?: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** PEM of the CA that signed the endpoint's certificate, when it is not a public one. */
  ca?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface PutOptions extends CallOptions {
  contentType?: string;
  /** Bytes per multipart part (>= 5 MiB, S3's minimum); memory held is about (queueSize + 1) parts. */
  partSize?: number;
  /** Parts uploaded at once. */
  queueSize?: number;
  /** Called with the bytes read from the body so far. */
  onProgress?: (bytes: number) => void;
}

export interface ListOptions extends CallOptions {
  /** Keys asked for per request (S3's maximum and default: 1000). */
  pageSize?: number;
}

export interface ObjectInfo {
  /** Relative to the store's prefix. */
  key: string;
  size: number;
  lastModified: Date;
  etag?: string;
}

export interface ObjectStore {
  readonly bucket: string;
  /**
   * Streams body to key: one PUT when it fits a part, else a multipart upload holding a few
   * parts in memory. The object appears whole or not at all; on failure or abort the upload is
   * aborted (no parts left behind) and a stream body destroyed, before the promise rejects.
   */
  put(key: string, body: Readable | Buffer, options?: PutOptions): Promise<{ size: number; etag?: string }>;
  /** The object's bytes as a stream; ObjectNotFoundError when there is none. */
  get(key: string, options?: CallOptions): Promise<Readable>;
  /** The object's size and date, or undefined when there is none. */
  head(key: string, options?: CallOptions): Promise<ObjectInfo | undefined>;
  /** A small JSON document (a manifest), parsed; the caller validates its shape. */
  getJson(key: string, options?: CallOptions): Promise<unknown>;
  putJson(key: string, value: unknown, options?: CallOptions): Promise<void>;
  /** Every object whose key starts with prefix, in key order, across as many pages as it takes. */
  list(prefix: string, options?: ListOptions): Promise<ObjectInfo[]>;
  /** Deletes keys (1000 per request); a key already gone is not an error. */
  delete(keys: readonly string[], options?: CallOptions): Promise<void>;
  /** Closes the client's sockets. */
  close(): void;
}

const MiB = 1024 * 1024;
/** 8 MiB parts reach 80 GB within S3's 10,000 parts; two in flight keep memory near 24 MiB. */
const defaultPartSize = 8 * MiB;
const defaultQueueSize = 2;
/** A manifest larger than this is not one: refuse it rather than buffer a backup in memory. */
const maxJsonBytes = 16 * MiB;
const deleteBatch = 1000;
/** A dead endpoint fails in seconds rather than at the OS's minutes-long connect timeout. */
const connectTimeoutMs = 10_000;

type Sdk = typeof import('@aws-sdk/client-s3');

export function createS3Store(config: S3StoreConfig): ObjectStore {
  const { bucket } = config;
  const prefix = normalizePrefix(config.prefix);
  const fullKey = (key: string) => prefix + key;
  let loaded: Promise<{ sdk: Sdk; client: S3Client }> | undefined;
  const load = () => (loaded ??= loadClient(config));

  /** Runs one call with its error translated, refusing at once when the signal is already aborted. */
  async function call<T>(place: ErrorPlace, signal: AbortSignal | undefined, fn: (l: Loaded) => Promise<T>) {
    try {
      signal?.throwIfAborted();
      return await fn(await load());
    } catch (error) {
      throw toObjectStoreError(error, place);
    }
  }
  type Loaded = Awaited<ReturnType<typeof load>>;

  const head = (key: string, options: CallOptions = {}) =>
    unlessObjectNotFound(
      call({ operation: 'head', bucket, key }, options.signal, async ({ sdk, client }) => {
        const out = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: fullKey(key) }), {
          abortSignal: options.signal,
        });
        return { key, size: out.ContentLength ?? 0, lastModified: out.LastModified ?? new Date(0), etag: out.ETag };
      }),
    );

  const get = (key: string, options: CallOptions = {}) =>
    call({ operation: 'get', bucket, key }, options.signal, async ({ sdk, client }) => {
      const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: fullKey(key) }), {
        abortSignal: options.signal,
      });
      if (!(out.Body instanceof Readable))
        throw new ObjectStoreError('failed', { operation: 'get', bucket, key }, 'no body');
      return out.Body;
    });

  async function put(key: string, body: Readable | Buffer, options: PutOptions = {}) {
    const place = { operation: 'put', bucket, key };
    const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
    // A failing body is the caller's error (its source broke), not the store's: kept apart.
    let bodyError: unknown;
    source.once('error', (error) => (bodyError ??= error));
    let size = 0;
    // Counted as it passes (a 'data' listener would drain the stream before the upload reads it).
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        options.onProgress?.(size);
        done(null, chunk);
      },
    });
    const feeding = pipeline(source, counted).catch(() => undefined);
    let upload: Upload | undefined;
    const abort = () => void upload?.abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    try {
      options.signal?.throwIfAborted();
      const { client } = await load();
      const { Upload } = await import('@aws-sdk/lib-storage');
      upload = new Upload({
        client,
        params: { Bucket: bucket, Key: fullKey(key), Body: counted, ContentType: options.contentType },
        partSize: Math.max(options.partSize ?? defaultPartSize, 5 * MiB),
        queueSize: options.queueSize ?? defaultQueueSize,
        // The cleanup is ours (below): Upload's own runs after done() has rejected.
        leavePartsOnError: true,
      });
      options.signal?.throwIfAborted();
      const out = await upload.done();
      return { size, etag: out.ETag };
    } catch (error) {
      const failedBody = bodyError;
      source.destroy();
      counted.destroy();
      // Upload rejects on abort at once while its part uploads wind down: the multipart upload
      // is aborted here, so that nothing of it is left when this promise settles. (An abort
      // while the upload is being created leaves an empty one, which no listing shows: a
      // bucket's AbortIncompleteMultipartUpload rule clears those.)
      if (upload?.uploadId !== undefined) await abortUpload(key, upload.uploadId);
      if (failedBody !== undefined) throw failedBody;
      throw toObjectStoreError(error, place);
    } finally {
      options.signal?.removeEventListener('abort', abort);
      await feeding;
    }
  }

  async function abortUpload(key: string, uploadId: string) {
    const { sdk, client } = await load();
    const input = { Bucket: bucket, Key: fullKey(key), UploadId: uploadId };
    await client.send(new sdk.AbortMultipartUploadCommand(input)).catch(() => undefined);
  }

  async function getJson(key: string, options: CallOptions = {}) {
    const place = { operation: 'get', bucket, key };
    const stream = await get(key, options);
    const chunks: Buffer[] = [];
    let bytes = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > maxJsonBytes) throw new ObjectStoreError('failed', place, `larger than ${maxJsonBytes} bytes`);
        chunks.push(chunk);
      }
    } catch (error) {
      stream.destroy();
      throw toObjectStoreError(error, place);
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } catch {
      throw new ObjectStoreError('failed', place, 'not JSON');
    }
  }

  const putJson = (key: string, value: unknown, options: CallOptions = {}) =>
    call({ operation: 'put', bucket, key }, options.signal, async ({ sdk, client }) => {
      const Body = Buffer.from(JSON.stringify(value));
      const input = { Bucket: bucket, Key: fullKey(key), Body, ContentType: 'application/json' };
      await client.send(new sdk.PutObjectCommand(input), { abortSignal: options.signal });
    });

  const list = (listPrefix: string, options: ListOptions = {}) =>
    call({ operation: 'list', bucket, key: listPrefix }, options.signal, async ({ sdk, client }) => {
      const found: ObjectInfo[] = [];
      let token: string | undefined;
      do {
        const input = {
          Bucket: bucket,
          Prefix: fullKey(listPrefix),
          MaxKeys: options.pageSize,
          ContinuationToken: token,
        };
        const page = await client.send(new sdk.ListObjectsV2Command(input), { abortSignal: options.signal });
        for (const o of page.Contents ?? []) {
          if (o.Key === undefined) continue;
          found.push({
            key: o.Key.slice(prefix.length),
            size: o.Size ?? 0,
            lastModified: o.LastModified ?? new Date(0),
            etag: o.ETag,
          });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      return found;
    });

  const remove = (keys: readonly string[], options: CallOptions = {}) =>
    call({ operation: 'delete', bucket, key: keys[0] }, options.signal, async ({ sdk, client }) => {
      for (let i = 0; i < keys.length; i += deleteBatch) {
        const Objects = keys.slice(i, i + deleteBatch).map((key) => ({ Key: fullKey(key) }));
        const out = await client.send(
          new sdk.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects, Quiet: true } }),
          { abortSignal: options.signal },
        );
        const failed = out.Errors?.[0];
        if (failed !== undefined) {
          const key = failed.Key?.slice(prefix.length);
          throw toObjectStoreError({ Code: failed.Code }, { operation: 'delete', bucket, key });
        }
      }
    });

  return {
    bucket,
    put,
    get,
    head,
    getJson,
    putJson,
    list,
    delete: remove,
    close() {
      void loaded?.then(
        ({ client }) => client.destroy(),
        () => undefined,
      );
    },
  };
}

/** '' or a prefix ending in one '/': 'backups' and '/backups/' both give 'backups/'. */
export function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

async function loadClient(config: S3StoreConfig): Promise<{ sdk: Sdk; client: S3Client }> {
  const sdk = await import('@aws-sdk/client-s3');
  const { Agent } = await import('node:https');
  const clientConfig: S3ClientConfig = {
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle ?? config.endpoint !== undefined,
    credentials: {
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      sessionToken: config.sessionToken,
    },
    requestHandler: {
      connectionTimeout: connectTimeoutMs,
      ...(config.ca === undefined ? {} : { httpsAgent: new Agent({ ca: config.ca, keepAlive: true }) }),
    },
  };
  return { sdk, client: new sdk.S3Client(clientConfig) };
}
