// The RedisCluster API: types of both versions, names, defaults, conversion, validation.
// Other modules import from here (`shared/core/api/index.ts`).
export * from './group.ts';
export type * from './k8s-types.ts';
export type * from './v1alpha1.ts';
export * from './v1beta1.ts';
export * from './versions.ts';
export { applySchemaDefaults, withDefaults, type DefaultedSpec } from './defaults.ts';
export { toV1alpha1, toV1beta1, convertObject, type SpecExtras, type StatusExtras } from './convert.ts';
export { ConversionError, MalformedReviewError } from './errors.ts';
export { validateV1beta1, maxMastersRemovedPerStep } from './validate-spec.ts';
export { FORBIDDEN_CONFIG, forbiddenConfigReasons } from './config-keys.ts';
export { redisClusterCrd } from './crd.ts';
export { validatingWebhookConfiguration } from './webhook-registration.ts';
export * from './webhook-client.ts';
export { reviewAdmission, reviewConversion, type HttpReply } from './review.ts';
export { MIN_MASTERS, MAX_MASTERS, MAX_REPLICAS_PER_MASTER, MAX_NODES, MAX_NAME_LENGTH } from './schema-v1beta1.ts';
