// The default of a switch over a union: it compiles only while every case is handled, so a new
// step kind, outcome or phase is a type error until someone decides what it means.
export function assertNever(value: never, what = 'case'): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}
