// The two webhook protocols as pure functions from a parsed request body to an HTTP reply:
// ConversionReview (apiextensions.k8s.io/v1) and AdmissionReview (admission.k8s.io/v1).
// A body that is not a review gets a 400 with a JSON reason; a review whose objects cannot be
// converted or validated gets a 200 whose response says why (that is what the API server shows).
import { admit, scaleTarget, storageGrowthTarget } from './admission.ts';
import type { StorageClassInfo } from './validate-spec.ts';
import { convertObject } from './convert.ts';
import { ConversionError, MalformedReviewError } from './errors.ts';
import { isJsonObject, type JsonObject } from './json.ts';

export interface HttpReply {
  status: number;
  body: unknown;
}

const badRequest = (message: string): HttpReply => ({ status: 400, body: { error: message } });

function expectReview(body: unknown, apiVersion: string, kind: string): Record<string, unknown> {
  if (!isJsonObject(body)) throw new MalformedReviewError(`the body must be a JSON ${kind} object`);
  if (body.apiVersion !== apiVersion || body.kind !== kind) {
    throw new MalformedReviewError(
      `expected apiVersion ${apiVersion} and kind ${kind}, got ${JSON.stringify(body.apiVersion)} ${JSON.stringify(body.kind)}`,
    );
  }
  if (!isJsonObject(body.request)) throw new MalformedReviewError(`${kind}.request must be an object`);
  return body.request;
}

function describe(obj: unknown, i: number): string {
  const meta = isJsonObject(obj) && isJsonObject(obj.metadata) ? obj.metadata : {};
  return typeof meta.name === 'string'
    ? `${typeof meta.namespace === 'string' ? `${meta.namespace}/` : ''}${meta.name}`
    : `objects[${i}]`;
}

export function reviewConversion(body: unknown): HttpReply {
  const apiVersion = 'apiextensions.k8s.io/v1';
  let request: Record<string, unknown>;
  try {
    request = expectReview(body, apiVersion, 'ConversionReview');
    if (typeof request.uid !== 'string' || request.uid === '')
      throw new MalformedReviewError('request.uid must be a non-empty string');
    if (typeof request.desiredAPIVersion !== 'string')
      throw new MalformedReviewError('request.desiredAPIVersion must be a string');
    if (!Array.isArray(request.objects)) throw new MalformedReviewError('request.objects must be an array');
  } catch (error) {
    if (error instanceof MalformedReviewError) return badRequest(error.message);
    throw error;
  }
  const { uid, desiredAPIVersion, objects } = request as { uid: string; desiredAPIVersion: string; objects: unknown[] };
  const reply = (response: object): HttpReply => ({
    status: 200,
    body: { apiVersion, kind: 'ConversionReview', response: { uid, ...response } },
  });
  const converted: unknown[] = [];
  for (const [i, obj] of objects.entries()) {
    try {
      converted.push(convertObject(obj, desiredAPIVersion));
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      return reply({
        convertedObjects: [],
        result: { status: 'Failure', message: `RedisCluster ${describe(obj, i)}: ${error.message}` },
      });
    }
  }
  return reply({ convertedObjects: converted, result: { status: 'Success' } });
}

/** The RedisCluster the caller must read and pass to reviewAdmission: that of a scale review. */
export function admissionScaleTarget(body: unknown): { namespace: string; name: string } | undefined {
  return scaleTarget(isJsonObject(body) ? body.request : undefined);
}

/** The StorageClass the caller must read and pass to reviewAdmission: that of a growing storage.size. */
export function admissionStorageTarget(body: unknown): { className: string } | undefined {
  return storageGrowthTarget(isJsonObject(body) ? body.request : undefined);
}

export function reviewAdmission(body: unknown, current?: JsonObject, storageClass?: StorageClassInfo): HttpReply {
  const apiVersion = 'admission.k8s.io/v1';
  try {
    const response = admit(expectReview(body, apiVersion, 'AdmissionReview'), current, storageClass);
    return { status: 200, body: { apiVersion, kind: 'AdmissionReview', response } };
  } catch (error) {
    if (error instanceof MalformedReviewError) return badRequest(error.message);
    throw error;
  }
}
