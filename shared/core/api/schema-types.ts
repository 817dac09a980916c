// The OpenAPI v3 subset a CRD's structural schema uses (apiextensions.k8s.io/v1
// JSONSchemaProps), and SchemaFor<T>: the schema type a TypeScript type must have. Writing a
// schema as `SchemaFor<RedisClusterSpec>` makes the compiler refuse a property the type does
// not have, a missing one, a wrong JSON type, a `required` key the type makes optional, and a
// string union without its enum: the types and the schema cannot drift.

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps;
  items?: JSONSchemaProps;
  required?: readonly string[];
  enum?: readonly (string | number)[];
  default?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  anyOf?: readonly JSONSchemaProps[];
  'x-kubernetes-validations'?: readonly ValidationRule[];
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-embedded-resource'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: readonly string[];
  'x-kubernetes-map-type'?: 'granular' | 'atomic';
}

type Shape = 'type' | 'properties' | 'items' | 'additionalProperties' | 'required' | 'enum';
type Base = Omit<JSONSchemaProps, Shape>;

/** Keys of T that are not optional. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

export type PropertiesFor<T> = { [K in keyof T]-?: SchemaFor<NonNullable<T[K]>> };

export type SchemaFor<T> = [T] extends [boolean]
  ? Base & { type: 'boolean' }
  : [T] extends [string]
    ? string extends T
      ? Base & { type: 'string'; enum?: readonly string[] }
      : Base & { type: 'string'; enum: readonly T[] }
    : [T] extends [number]
      ? Base & { type: 'integer' | 'number' }
      : [T] extends [string | number]
        ? Base & { 'x-kubernetes-int-or-string': true }
        : [T] extends [readonly (infer E)[]]
          ? Base & { type: 'array'; items: SchemaFor<E> }
          : string extends keyof T
            ? Base & { type: 'object'; additionalProperties: SchemaFor<NonNullable<T[string]>> }
            : Base & { type: 'object'; properties: PropertiesFor<T>; required?: readonly RequiredKeys<T>[] };
