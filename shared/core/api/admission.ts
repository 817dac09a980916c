// The validating webhook's decision for one AdmissionRequest (admission.k8s.io/v1): which
// object it is (v1alpha1, v1beta1, or the Scale of either), the checks that apply, and the
// response. Pure: the HTTP server only parses JSON and sends what this returns.
import { convertObject } from './convert.ts';
import { ConversionError, MalformedReviewError } from './errors.ts';
import { API_VERSION_V1ALPHA1, GROUP, V1ALPHA1, V1BETA1 } from './group.ts';
import { isJsonObject, type JsonObject } from './json.ts';
import type { RedisCluster } from './v1beta1.ts';
import {
  growsStorage,
  maxMastersRemovedPerStep,
  scaleInMessage,
  validateV1beta1,
  type StorageClassInfo,
} from './validate-spec.ts';
import { emptyVerdict, type Verdict } from './verdict.ts';

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason: string; message: string };
  warnings?: string[];
}

function asBeta(obj: unknown, version: string): RedisCluster {
  if (!isJsonObject(obj)) throw new MalformedReviewError('the object must be a JSON object');
  if (version === V1BETA1) return convertObject(obj, `${GROUP}/${V1BETA1}`) as unknown as RedisCluster;
  return convertObject({ ...obj, apiVersion: API_VERSION_V1ALPHA1 }, `${GROUP}/${V1BETA1}`) as unknown as RedisCluster;
}

function replicasOf(scale: unknown, which: string): number {
  const replicas = isJsonObject(scale) && isJsonObject(scale.spec) ? (scale.spec.replicas ?? 0) : undefined;
  if (typeof replicas !== 'number') throw new MalformedReviewError(`${which}.spec.replicas must be a number`);
  return replicas;
}

/** The RedisCluster a review of the scale subresource is about, which the caller reads for admit(). */
export function scaleTarget(request: unknown): { namespace: string; name: string } | undefined {
  if (!isJsonObject(request) || request.subResource !== 'scale' || request.operation !== 'UPDATE') return undefined;
  const { namespace, name } = request;
  return typeof namespace === 'string' && typeof name === 'string' ? { namespace, name } : undefined;
}

/**
 * `kubectl scale` as the edit it amounts to: the current RedisCluster (read from the API server:
 * a Scale carries no status, so no operation in progress nor readiness) as the old object, and
 * the same with the new replicas as the object, in the version of the request. So a scale
 * meets exactly the rules and messages of `kubectl edit`/`patch` of the same field.
 */
function scaleAsEdit(request: JsonObject, version: string, current: JsonObject): JsonObject {
  const old = convertObject(current, `${GROUP}/${version}`);
  const field = version === V1ALPHA1 ? 'replicas' : 'masters';
  const object = {
    ...old,
    spec: { ...(isJsonObject(old.spec) ? old.spec : {}), [field]: replicasOf(request.object, 'object') },
  };
  return { ...request, subResource: undefined, object, oldObject: old };
}

function checkScaleCounts(request: JsonObject, version: string): Verdict {
  const v = emptyVerdict();
  const field = version === V1ALPHA1 ? 'spec.replicas' : 'spec.masters';
  const message = scaleInMessage(
    field,
    replicasOf(request.oldObject, 'oldObject'),
    replicasOf(request.object, 'object'),
    version === V1ALPHA1 ? 'Redis nodes' : 'masters',
  );
  if (message) v.denials.push(message);
  return v;
}

/** A too-large scale-in in v1alpha1 words: nodes, with a first step that keeps whole shards. */
function alphaScaleInMessage(fromMasters: number, toMasters: number, perShard: number): string | undefined {
  const removable = maxMastersRemovedPerStep(fromMasters);
  if (toMasters >= fromMasters || fromMasters - toMasters <= removable) return undefined;
  return (
    `spec.replicas: scaling in from ${fromMasters * perShard} to ${toMasters * perShard} Redis nodes removes ${fromMasters - toMasters} of ${fromMasters} masters at once, ` +
    `but at most ${removable} (half) can go in one step because their slots move to the masters that stay: ` +
    `scale to ${(fromMasters - removable) * perShard} first, then to ${toMasters * perShard}`
  );
}

/**
 * The StorageClass the caller must read and pass to admit(): that of an UPDATE growing
 * spec.storage.size ('' for the cluster's default class), else undefined.
 */
export function storageGrowthTarget(request: unknown): { namespace: string; className: string } | undefined {
  if (!isJsonObject(request) || request.operation !== 'UPDATE' || (request.subResource ?? '') !== '') return undefined;
  const version = isJsonObject(request.resource) ? String(request.resource.version ?? '') : '';
  if (version !== V1ALPHA1 && version !== V1BETA1) return undefined;
  try {
    const growth = growsStorage(asBeta(request.object, version), asBeta(request.oldObject, version));
    return growth && { namespace: String(request.namespace ?? ''), className: growth.className };
  } catch {
    return undefined; // admit() answers what is wrong with the objects
  }
}

function check(request: JsonObject, current: JsonObject | undefined, storageClass?: StorageClassInfo): Verdict {
  const resource = isJsonObject(request.resource) ? request.resource : {};
  const version = String(resource.version ?? '');
  if (
    resource.group !== GROUP ||
    resource.resource !== 'redisclusters' ||
    (version !== V1ALPHA1 && version !== V1BETA1)
  ) {
    throw new MalformedReviewError(
      `this webhook validates ${GROUP} redisclusters (v1alpha1, v1beta1), not ${JSON.stringify(resource)}`,
    );
  }
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return emptyVerdict();
  if (request.subResource === 'scale') {
    if (request.operation !== 'UPDATE') return emptyVerdict();
    // Not found (deleted meanwhile; the API server answers that itself): the Scale's own counts at least.
    return current === undefined
      ? checkScaleCounts(request, version)
      : check(scaleAsEdit(request, version, current), undefined);
  }
  if (request.subResource !== undefined && request.subResource !== '') return emptyVerdict();
  const obj = asBeta(request.object, version);
  const old = request.operation === 'UPDATE' ? asBeta(request.oldObject, version) : undefined;
  const storage = storageClass ? { storageClass } : {};
  if (version !== V1ALPHA1) return validateV1beta1(obj, old, storage);
  const perShard = 1 + (obj.spec.replicasPerMaster ?? 0);
  return validateV1beta1(obj, old, {
    ...storage,
    scaleInMessage: (from, to) => alphaScaleInMessage(from, to, perShard),
  });
}

/**
 * The response to one AdmissionRequest; throws MalformedReviewError when there is no request to
 * answer. `current` is the stored RedisCluster (v1beta1) of a scale review (see scaleTarget).
 */
export function admit(request: unknown, current?: JsonObject, storageClass?: StorageClassInfo): AdmissionResponse {
  if (!isJsonObject(request)) throw new MalformedReviewError('request must be an object');
  if (typeof request.uid !== 'string' || request.uid === '')
    throw new MalformedReviewError('request.uid must be a non-empty string');
  const uid = request.uid;
  let verdict: Verdict;
  try {
    verdict = check(request, current, storageClass);
  } catch (error) {
    if (error instanceof ConversionError)
      return { uid, allowed: false, status: { code: 422, reason: 'Invalid', message: error.message } };
    if (error instanceof MalformedReviewError)
      return { uid, allowed: false, status: { code: 400, reason: 'BadRequest', message: error.message } };
    throw error;
  }
  const warnings = verdict.warnings.length > 0 ? { warnings: verdict.warnings } : {};
  if (verdict.denials.length === 0) return { uid, allowed: true, ...warnings };
  return {
    uid,
    allowed: false,
    status: { code: 422, reason: 'Invalid', message: verdict.denials.join('; ') },
    ...warnings,
  };
}
