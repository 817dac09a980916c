// The default of an exhaustive switch: a case added to a union and not handled fails to
// compile here, instead of silently doing nothing at run time.
export function assertNever(x: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(x)}`);
}
